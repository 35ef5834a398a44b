#include "agents/builtin/loopnest_catalogue.h"

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace agents::builtin {

const std::set<std::string>& retired_by_form() {
  // fuse_stages is fuse_nests (blocks of 1, 2, 4 iterations; the same kernels), found by the form in
  // every style where the AST rewrite sees only named per-iteration buffers. split_loop,
  // sink_recompute, read_copy_source and transpose_choice find sites by how a source is written
  // (statements, named loads and copies, a transpose written as a matmul by the identity), so the
  // same nest had 1 to 15 of them depending on the style, and none gained 3% in the ~350
  // evaluations of them in the style runs of 1-2 Dec (docs/performance/builtin_agent.md). free_size
  // on the source (a size variable, a loop bound `n // 512`) is the form's free_size (column blocks)
  // or tile_size (a loop over one tile axis) where the source names the size, and finds nothing
  // where it is a literal (the published style); the AST sites left were halved matmul tiles (none
  // of ~35 gained) and the form's tile_size again. drop_psum_copy matched only the bundled style's
  // `up = nl.copy(acc)` (swiglu: 4.279 -> 4.250 ms, 0.7%). reorder_reuse on the source tells what a
  // statement writes by the names it binds, so a destination-first write (`nisa.dma_copy(dst=w, ...)`
  // into a buffer declared up front) was no dependence: a row loop moved out of the column-block loop
  // read another block's weights, and blocking it wrote two rows into one buffer (a held-out newer-API
  // swiglu and bmm_softmax: 10 of their 12 AST sites wrong). The form's reorder_reuse reads the dependences.
  static const std::set<std::string> retired = {
      "fuse_silu",        "fold_tensor_scalar", "fold_into_activation", "engine_move",    "fuse_loops",
      "fuse_activation_reduce", "whole_row_reduce", "unroll_jam",         "interchange",    "hoist_load_loop",
      "fold_partitions",  "chunk_free_axis",    "defer_normalization",  "pipeline_prep",  "forward_scratch",
      "fuse_stages",      "split_loop",         "sink_recompute",       "read_copy_source", "transpose_choice",
      "free_size",        "drop_psum_copy",     "reorder_reuse"};
  return retired;
}

bool covered_by_form(const Site& site, const std::set<std::string>& form_transforms) {
  // Dividing instead of multiplying by a reciprocal is the form's fold_reciprocal.
  if (site.transform == "algebraic_simplify") {
    auto rule = site.params.find("rule");
    return rule != site.params.end() && rule->second == "mul_recip" && form_transforms.count("fold_reciprocal");
  }
  return false;
}

bool is_loopnest_transform(const std::string& name) { return loopnest::find_transform(name) != nullptr; }

std::string loopnest_description(const std::string& name) {
  const loopnest::Transform* t = loopnest::find_transform(name);
  return t ? t->description() : name;
}

std::string site_description(const Site& site) {
  if (site.params.count("anchor") && is_loopnest_transform(site.transform)) return loopnest_description(site.transform);
  const Transform* t = find_transform(site.transform);
  return t ? t->description() : loopnest_description(site.transform);
}

std::optional<std::vector<Site>> loopnest_sites(const std::string& source, const std::vector<loopnest::ArgSpec>& args,
                                                const std::string& entry, int nc_version) {
  loopnest::Kernel k;
  try {
    k = loopnest::lift_source("kernel.py", source, args, entry, nc_version);
  } catch (const loopnest::LiftError&) {
    return std::nullopt;
  }
  std::vector<Site> out;
  for (const auto& s : loopnest::find_sites(k)) {
    Site site;
    site.transform = s.transform;
    site.params = s.params;
    site.params["anchor"] = s.anchor;
    site.params["line"] = std::to_string(s.line);
    site.summary = s.summary;
    site.relieves = s.relieves;
    site.feeds = s.feeds;
    site.adds = s.adds;
    out.push_back(std::move(site));
  }
  return out;
}

std::string apply_loopnest_site(const std::string& source, const Site& site, const std::vector<loopnest::ArgSpec>& args,
                                const std::string& entry, int nc_version) {
  loopnest::Site s;
  s.transform = site.transform;
  for (const auto& [k, v] : site.params)
    if (k != "anchor" && k != "line") s.params[k] = v;
  auto anchor = site.params.find("anchor");
  if (anchor == site.params.end()) throw RewriteError("a loop-nest site without its anchor");
  s.anchor = anchor->second;
  // The line tells apart sites of one anchor (two loops of one nest): Transform::apply.
  if (auto line = site.params.find("line"); line != site.params.end()) {
    try {
      s.line = std::stoi(line->second);
    } catch (const std::exception&) {
    }
  }
  try {
    return loopnest::apply_site("kernel.py", source, args, s, entry, nc_version);
  } catch (const loopnest::LiftError& e) {
    throw RewriteError(e.render());
  } catch (const loopnest::TransformError& e) {
    throw RewriteError(e.what());
  }
}

}  // namespace agents::builtin
