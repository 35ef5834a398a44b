// `accelopt profile`: a trace-only run of a kernel (no numerics, shape-only inputs) through the
// NeuronCore simulator.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "eval/profile_run.h"
#include "cli/command.h"
#include "lower/options.h"
#include "trn/profile.h"

namespace {

struct ProfileOptions {
  std::string reference, kernel, entry, arch = "trn1", timeline, lower = "all";
  bool json = false;
};

int run_profile(const ProfileOptions& opt) {
  eval::TraceRequest req = eval::trace_request_from_files(opt.reference, opt.kernel);
  req.entry = {opt.entry, cli::kEntryOption};
  eval::ProfileRun run = eval::profile_kernel(req, opt.arch, {.timeline_path = opt.timeline, .lowering = lower::parse_rules(opt.lower)});
  for (const auto& d : run.diagnostics) fmt::print(stderr, "{}\n", d);
  if (!run.profile) {
    fmt::print(stderr, "status: {}\n", eval::to_string(run.status));
    return 1;
  }
  if (opt.json) {
    fmt::print("{}\n", trn::to_json(*run.profile).dump(2));
    return 0;
  }
  nlohmann::json j = trn::to_json(*run.profile);
  for (auto& [key, value] : j.items()) fmt::print("{:<36} {}\n", key, value.dump());
  return 0;
}

cli::RunFn setup_profile(CLI::App& sub) {
  auto opt = std::make_shared<ProfileOptions>();
  sub.add_option("--reference", opt->reference, "task reference (provides the input shapes)")->required();
  sub.add_option("--kernel", opt->kernel, "kernel file")->required();
  cli::add_entry_option(sub, opt->entry);
  sub.add_option("--arch", opt->arch, "simulated NeuronCore")->check(CLI::IsMember({"trn1", "trn2"}));
  sub.add_option("--timeline", opt->timeline, "write a Chrome trace of the simulated run to this file");
  sub.add_flag("--json", opt->json, "print the profile as JSON");
  sub.add_option("--lower", opt->lower,
                 "compiler-stage rules before simulating: all, none, or a list (psum_copies, psum_accumulation, "
                 "hoist_loads, loop_folding, dma_coalescing)");
  return [opt] { return run_profile(*opt); };
}

cli::CommandRegistrar reg("profile", "simulate a kernel (trace-only, no numerics) and print its profile",
                          setup_profile);

}  // namespace
