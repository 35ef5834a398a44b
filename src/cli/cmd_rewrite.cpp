// `accelopt rewrite --kernel K`: the built-in agent's catalogue as a tool for kernel engineers.
//   (no --apply)        lists every site the catalogue finds: its key and what it would change
//   --apply 'KEY' ...   applies the sites in order (each key as listed for the kernel at that
//                       point) and prints the rewritten kernel, like the agent's executor does
//   --json              the list as [{"key", "transform", "params", "summary"}], with "relieves" and
//                       "feeds" (engine families) where the loop-nest form says where the move saves time
//   --entry NAME        the function of the file to rewrite, as `eval --entry` names the one to run
//                       (the same default and errors: a file with several kernels needs it)
//   --arch trn1|trn2    the target whose nisa.get_nc_version() the loop-nest form is lifted for (a
//                       kernel branching on it is rewritten in that target's branch); default trn1
//   --reference REF     the task reference giving the kernel's argument shapes, for the sites of
//                       the loop-nest form (default: the reference its file name has in a
//                       benchmark directory, as `accelopt parse --emit loops` finds it)
// When the helpers a kernel calls in its loops cannot be opened (their sites then are not offered),
// a note on stderr says what stopped them.
// The rewritten kernel is not checked here: `accelopt eval` is the judge, as in the search.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/transform.h"
#include "bench/arg_specs.h"
#include "eval/profile_run.h"
#include "cli/command.h"
#include "cli/kernel_entry_check.h"
#include "cli/read_source.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

struct RewriteOptions {
  std::string kernel;
  std::string entry;
  std::vector<std::string> apply;
  std::string transform;  // list only this transformation's sites
  std::string reference;
  std::string bench_root;  // where the reference is found by the kernel's file name (default: the bundled one)
  std::string arch = "trn1";
  bool json = false;
  std::vector<loopnest::ArgSpec> args;
};

int list_sites(const std::string& text, const RewriteOptions& o) {
  nlohmann::json out = nlohmann::json::array();
  bool in_bodies = false;  // a site inside a helper's body, printed there (helpers=body)
  for (const auto& site : agents::builtin::find_sites(text, o.args, o.entry, agents::builtin::nc_version_of(o.arch))) {
    if (auto h = site.params.find("helpers"); h != site.params.end() && h->second == "body") in_bodies = true;
    if (!o.transform.empty() && site.transform != o.transform) continue;
    if (o.json) {
      nlohmann::json j = {{"key", site.key()}, {"transform", site.transform}, {"params", site.params},
                          {"summary", site.summary}};
      if (!site.relieves.empty()) j["relieves"] = site.relieves;
      if (!site.feeds.empty()) j["feeds"] = site.feeds;
      out.push_back(std::move(j));
    } else
      fmt::print("{}\n    {}\n", site.key(), site.summary);
  }
  if (o.json) fmt::print("{}\n", out.dump(2));
  // Sites inside helper functions need the helpers opened: say what stopped that.
  // (None when the sites inside their bodies are offered, printed there.)
  if (!o.args.empty() && !in_bodies) {
    try {
      // The note names what stays closed: a helper's call, or a loop the kernel's Python unrolls
      // while tracing (a `while` rebinding a tile name had the helpers' note before session 27).
      if (auto closed = loopnest::inlines_stay_closed(loopnest::lift_source(o.kernel, text, o.args, o.entry,
                                                                           agents::builtin::nc_version_of(o.arch))))
        fmt::print(stderr, "accelopt: note: {}: {} stay closed (no site inside them): {}\n", o.kernel,
                   loopnest::describe(*closed), closed->why);
    } catch (const loopnest::LiftError&) {
      // A kernel the form cannot lift has no form sites at all; `accelopt parse --emit loops` says why.
    }
  }
  return 0;
}

int apply_sites(std::string text, const RewriteOptions& o) {
  for (const auto& key : o.apply) {
    auto site = agents::builtin::parse_site_key(key);
    if (!site) {
      fmt::print(stderr, "accelopt: error: '{}' is not a site key (NAME line=N k=v ..., as listed)\n", key);
      return 1;
    }
    try {
      text = agents::builtin::apply_site(text, *site, o.args, o.entry, agents::builtin::nc_version_of(o.arch));
    } catch (const agents::builtin::RewriteError& e) {
      fmt::print(stderr, "accelopt: error: {}: cannot apply '{}': {}\n", o.kernel, key, e.what());
      return 1;
    }
  }
  fmt::print("{}", text);
  return 0;
}

int run_rewrite(RewriteOptions& o) {
  auto text = cli::read_source_file(o.kernel);
  if (!text || !cli::check_entry(o.kernel, *text, o.entry)) return 1;
  std::string reference = o.reference.empty() ? bench::reference_for_kernel(o.kernel, o.bench_root) : o.reference;
  if (!reference.empty()) {
    auto ref_text = cli::read_source_file(reference);
    if (!ref_text) return 1;
    try {
      o.args = eval::reference_arg_specs(reference, *ref_text);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "accelopt: error: {}\n", e.what());
      return 1;
    }
  }
  return o.apply.empty() ? list_sites(*text, o) : apply_sites(*text, o);
}

cli::RunFn setup_rewrite(CLI::App& sub) {
  auto o = std::make_shared<RewriteOptions>();
  sub.add_option("--kernel", o->kernel, "kernel file (.py: @nki.jit def kernel)")->required();
  cli::add_entry_option(sub, o->entry);
  sub.add_option("--apply", o->apply, "site key to apply (repeat to apply several in order)");
  sub.add_option("--transform", o->transform, "list only the sites of this transformation");
  sub.add_flag("--json", o->json, "list the sites as JSON");
  sub.add_option("--arch", o->arch, "target whose nisa.get_nc_version() the loop-nest form takes: trn1 or trn2")
      ->check(CLI::IsMember({"trn1", "trn2"}));
  sub.add_option("--reference", o->reference, "task reference giving the kernel's argument shapes (loop-nest sites)");
  sub.add_option("--bench-root", o->bench_root, "benchmark directory whose task references the kernel's file name finds (default: the bundled nkibench)");
  return [o] { return run_rewrite(*o); };
}

cli::CommandRegistrar reg("rewrite", "list the built-in agent's rewrite sites in a kernel, or apply some", setup_rewrite);

}  // namespace
