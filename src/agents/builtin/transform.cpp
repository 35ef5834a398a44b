#include "agents/builtin/transform.h"

#include <optional>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/loopnest_catalogue.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "nki/ast_printer.h"
#include "trn/arch_config.h"

namespace agents::builtin {

std::string Site::key() const {
  std::string k = transform;
  for (const auto& [name, value] : params) k += fmt::format(" {}={}", name, value);
  return k;
}

int Site::line() const {
  auto it = params.find("line");
  return it == params.end() ? 0 : std::stoi(it->second);
}

std::optional<Site> parse_site_key(const std::string& key) {
  std::stringstream words(key);
  Site site;
  if (!(words >> site.transform) || site.transform.find('=') != std::string::npos) return std::nullopt;
  std::string word;
  while (words >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    site.params[word.substr(0, eq)] = word.substr(eq + 1);
  }
  if (!site.params.count("line")) return std::nullopt;
  return site;
}

const std::vector<std::unique_ptr<Transform>>& catalogue() {
  static const std::vector<std::unique_ptr<Transform>> all = [] {
    std::vector<std::unique_ptr<Transform>> v;
    v.push_back(make_fuse_silu());
    v.push_back(make_fold_tensor_scalar());
    v.push_back(make_fold_into_activation());
    v.push_back(make_algebraic_simplify());
    v.push_back(make_fuse_activation_reduce());
    v.push_back(make_free_size());
    v.push_back(make_hoist_invariant());
    v.push_back(make_sink_recompute());
    v.push_back(make_interchange());
    v.push_back(make_fuse_loops());
    v.push_back(make_split_loop());
    v.push_back(make_engine_move());
    v.push_back(make_drop_psum_copy());
    v.push_back(make_transpose_choice());
    v.push_back(make_forward_scratch());
    v.push_back(make_hoist_load_loop());
    v.push_back(make_fuse_stages());
    v.push_back(make_read_copy_source());
    v.push_back(make_defer_normalization());
    v.push_back(make_whole_row_reduce());
    v.push_back(make_fold_partitions());
    v.push_back(make_chunk_free_axis());
    v.push_back(make_unroll_jam());
    v.push_back(make_reorder_reuse());
    v.push_back(make_pipeline_prep());
    return v;
  }();
  return all;
}

const Transform* find_transform(const std::string& name) {
  for (const auto& t : catalogue())
    if (t->name() == name) return t.get();
  return nullptr;
}

namespace {

// A source-level free_size whose result exceeds a hardware tile limit the kernel did not (a moving
// matmul operand over 512 columns, a PSUM tile over one 2 KiB bank, more than 128 partitions:
// loopnest::limit_violation on the lifted result) is dropped: the interpreter would refuse the
// kernel, an evaluation lost. Kept when the kernel or the result does not lift (nothing to judge).
void drop_sites_beyond_limits(const std::string& source, const std::vector<loopnest::ArgSpec>& args,
                              const std::string& entry, int nc_version, std::vector<Site>& sites) {
  auto lifted = [&](const std::string& text) -> std::optional<loopnest::Kernel> {
    try {
      return loopnest::lift_source("kernel.py", text, args, entry, nc_version);
    } catch (const loopnest::LiftError&) {
      return std::nullopt;
    }
  };
  bool checked = false, within = false;
  std::erase_if(sites, [&](const Site& s) {
    if (s.transform != "free_size" || s.params.count("anchor")) return false;
    if (!checked) {
      checked = true;
      auto k = lifted(source);
      within = k && !loopnest::limit_violation(*k);
    }
    if (!within) return false;
    std::optional<loopnest::Kernel> after;
    try {
      after = lifted(apply_site(source, s, args, entry, nc_version));
    } catch (const RewriteError&) {
      return false;
    }
    return after && loopnest::limit_violation(*after).has_value();
  });
}

}  // namespace

int nc_version_of(const std::string& arch) {
  try {
    return trn::arch_config(arch).nc_version;
  } catch (const std::invalid_argument&) {
    return 2;
  }
}

std::vector<Site> find_sites(const std::string& source, const std::vector<loopnest::ArgSpec>& args,
                             const std::string& entry, int nc_version) {
  std::vector<Site> sites;
  auto form_sites = loopnest_sites(source, args, entry, nc_version);
  std::shared_ptr<nki::ModuleAst> module;
  nki::FunctionCode* kernel = nullptr;
  try {
    module = parse_source(source);
    kernel = &find_kernel(*module, entry);
  } catch (const RewriteError&) {
    return sites;
  }
  // An AST rewrite the form covers is not offered twice (retired_by_form, covered_by_form): each
  // style gets the form's sites alike. reorder_reuse exists under one name in both: on a kernel that
  // lifts, only the form's is offered (retired_by_form), found or not.
  std::set<std::string> on_form;
  if (form_sites)
    for (const auto& s : *form_sites) on_form.insert(s.transform);
  for (const auto& t : catalogue()) {
    if (form_sites && (retired_by_form().count(t->name()) || on_form.count(t->name()))) continue;
    // A transformation that cannot analyse this kernel has no sites; the others still look.
    try {
      auto found = t->find(kernel->body);
      for (auto& s : found) {
        s.transform = t->name();
        if (form_sites && covered_by_form(s, on_form)) continue;
        sites.push_back(std::move(s));
      }
    } catch (const RewriteError&) {
    }
  }
  drop_sites_beyond_limits(source, args, entry, nc_version, sites);
  if (form_sites) sites.insert(sites.end(), form_sites->begin(), form_sites->end());
  return sites;
}

std::string apply_site(const std::string& source, const Site& site, const std::vector<loopnest::ArgSpec>& args,
                       const std::string& entry, int nc_version) {
  // A loop-nest site names its op by its anchor in the nest; a catalogue site by its line.
  if (site.params.count("anchor") && is_loopnest_transform(site.transform)) {
    std::string out = apply_loopnest_site(source, site, args, entry, nc_version);
    auto printed = parse_source(out);
    return import_used_aliases(*printed) ? nki::print_module(*printed) : out;
  }
  const Transform* t = find_transform(site.transform);
  if (!t) throw RewriteError(fmt::format("unknown transformation '{}'", site.transform));
  auto module = parse_source(source);
  t->apply(find_kernel(*module, entry).body, site);
  import_used_aliases(*module);
  std::string out = nki::print_module(*module);
  // A source-level rewrite does not see the task's shapes. Where the result's own assertion fails
  // at them (unroll_jam / reorder_reuse blocked by 4 over a loop of 2 or 6 trips asserts the factor
  // divides it), the site does not apply: the evaluation would only fail at trace time (a held-out
  // swiglu spent 3 of 24 evaluations so). Any other lift failure says nothing about the rewrite.
  if (!args.empty()) {
    try {
      loopnest::lift_source("<rewritten>", out, args, entry, nc_version);
    } catch (const loopnest::LiftError& e) {
      if (e.diag.kind == nki::ErrorKind::Assertion)
        throw RewriteError(fmt::format("{}: the rewritten kernel's assertion fails at the task's shapes", site.transform));
    } catch (const std::exception&) {
      // not liftable for another reason: the evaluation decides
    }
  }
  return out;
}

}  // namespace agents::builtin
