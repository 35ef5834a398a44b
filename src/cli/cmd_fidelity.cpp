// `accelopt fidelity`: the simulator against every public real-hardware measurement of the
// fidelity suite (fidelity/manifest.yaml, fidelity/README.md). Each entry is checked for
// correctness at its check shape and profiled trace-only at its measured shape; the command
// prints per entry the measured and simulated numbers, per ladder Kendall tau and the direction of
// each step, and per generation and role the median |log ratio|. --guard compares the figures with
// the committed thresholds (the CI regression guard); --write-band regenerates the error band;
// --fields prints every summary field against the recorded real profile where the entry has one
// (the seven Trn1 baselines), with each field's stated tolerance; the guard checks them.
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "fidelity/band.h"
#include "fidelity/fields.h"
#include "fidelity/manifest.h"
#include "fidelity/report.h"
#include "fidelity/runner.h"
#include "fidelity/stats.h"
#include "trn/arch_config.h"

namespace {

struct FidelityOptions {
  std::string manifest, arch = "all", ladder, kernel, guard, write_band, write_thresholds, timeline_dir, lower = "all";
  std::vector<std::string> parameters;  // NAME=VALUE
  bool json = false, no_check = false, check_slow = false, fields = false;
};

bool selected(const fidelity::Entry& e, const FidelityOptions& opt) {
  if (opt.arch != "all" && e.gen != opt.arch) return false;
  if (!opt.ladder.empty() && e.group != opt.ladder) return false;
  if (!opt.kernel.empty() && e.id() != opt.kernel && e.name != opt.kernel) return false;
  return true;
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path));
}

int run_fidelity(const FidelityOptions& opt) {
  std::string path = opt.manifest.empty() ? fidelity::default_manifest_path() : opt.manifest;
  if (path.empty()) {
    fmt::print(stderr, "error: no fidelity manifest found (give --manifest or run inside the checkout)\n");
    return 2;
  }
  fidelity::Manifest manifest;
  try {
    manifest = fidelity::load_manifest(path);
  } catch (const fidelity::ManifestError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  const bool whole_suite = opt.arch == "all" && opt.ladder.empty() && opt.kernel.empty();
  if (!whole_suite && (!opt.guard.empty() || !opt.write_band.empty() || !opt.write_thresholds.empty())) {
    fmt::print(stderr, "error: --guard, --write-band and --write-thresholds need the whole suite (no --arch, "
                       "--ladder or --kernel)\n");
    return 2;
  }
  fidelity::RunOptions run_options;
  for (const std::string& p : opt.parameters) {
    const size_t eq = p.find('=');
    try {
      if (eq == std::string::npos) throw std::invalid_argument("expected NAME=VALUE");
      const std::string name = p.substr(0, eq);
      const double value = std::stod(p.substr(eq + 1));
      trn::ArchConfig probe = trn::arch_config("trn1");
      trn::set_parameter(probe, name, value);  // an unknown name or a bad value fails here
      run_options.parameters.emplace_back(name, value);
    } catch (const std::exception& e) {
      fmt::print(stderr, "error: --set {}: {}\n", p, e.what());
      return 2;
    }
  }
  try {
    run_options.lowering = lower::parse_rules(opt.lower);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: --lower: {}\n", e.what());
    return 2;
  }
  if ((!run_options.parameters.empty() || opt.lower != "all") && (!opt.guard.empty() || !opt.write_band.empty() || !opt.write_thresholds.empty())) {
    fmt::print(stderr, "error: --set and --lower change the model; --guard, --write-band and --write-thresholds take the shipped one\n");
    return 2;
  }
  run_options.check = !opt.no_check;
  run_options.check_slow = opt.check_slow;
  run_options.timeline_dir = opt.timeline_dir;
  std::vector<fidelity::EntryResult> results;
  for (const auto& e : manifest.entries) {
    if (!selected(e, opt)) continue;
    if (!opt.json) fmt::print(stderr, "fidelity: {}\n", e.id());
    results.push_back(fidelity::run_entry(e, run_options));
  }
  if (results.empty()) {
    fmt::print(stderr, "error: no entry of {} matches the selection\n", path);
    return 2;
  }
  fidelity::Summary summary = fidelity::summarize(results);

  std::vector<std::string> failures;
  if (!opt.guard.empty()) {
    try {
      std::ifstream in(opt.guard);
      if (!in) throw std::runtime_error(fmt::format("{}: cannot read", opt.guard));
      failures = fidelity::guard_failures(results, fidelity::thresholds_from_json(nlohmann::json::parse(in)));
    } catch (const std::exception& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      return 2;
    }
  }
  std::vector<fidelity::EntryFields> fields;
  if (opt.fields) fields = fidelity::field_comparisons(results);
  if (!opt.write_band.empty()) write_json_file(opt.write_band, trn::to_json(fidelity::derive_error_band(results)));
  if (!opt.write_thresholds.empty())
    write_json_file(opt.write_thresholds, fidelity::to_json(fidelity::thresholds_of(results)));

  if (opt.json) {
    nlohmann::json j;
    j["manifest"] = path;
    j["launch_offset_us"] = {{"trn1", trn::arch_config("trn1").launch_offset_us},
                             {"trn2", trn::arch_config("trn2").launch_offset_us}};
    j["entries"] = nlohmann::json::array();
    for (const auto& r : results) j["entries"].push_back(fidelity::to_json(r));
    j["summary"] = fidelity::to_json(summary);
    if (opt.fields) j["fields"] = fidelity::fields_to_json(fields);
    if (!opt.guard.empty()) j["guard"] = {{"thresholds", opt.guard}, {"failures", failures}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("fidelity suite {} ({} entries; whole-run latencies include a launch offset of {} us trn1, {} us trn2)\n",
               path, results.size(), trn::arch_config("trn1").launch_offset_us,
               trn::arch_config("trn2").launch_offset_us);
    fmt::print("{}", fidelity::format_text(results, summary));
    if (opt.fields) fmt::print("{}", fidelity::format_fields_text(fields));
    if (!opt.guard.empty() && failures.empty()) fmt::print("guard: every figure within {}\n", opt.guard);
    for (const auto& f : failures) fmt::print("guard: REGRESSION {}\n", f);
  }
  return failures.empty() ? 0 : 1;
}

cli::RunFn setup_fidelity(CLI::App& sub) {
  auto opt = std::make_shared<FidelityOptions>();
  sub.add_option("--manifest", opt->manifest, "suite manifest (default: fidelity/manifest.yaml of the checkout)");
  sub.add_option("--arch", opt->arch, "only the entries measured on this generation")
      ->check(CLI::IsMember({"trn1", "trn2", "all"}));
  sub.add_option("--ladder", opt->ladder, "only the entries of this group (e.g. matmul_tutorial)");
  sub.add_option("--kernel", opt->kernel, "only this entry (group/name or name)");
  sub.add_flag("--json", opt->json, "print the results as JSON");
  sub.add_flag("--no-check", opt->no_check, "skip the numerics checks (profiles only)");
  sub.add_flag("--check-slow", opt->check_slow, "also run the checks marked slow (measured-shape-only kernels)");
  sub.add_flag("--fields", opt->fields,
               "also print every profile field against the recorded real profile (the Trn1 baselines), "
               "with its tolerance");
  sub.add_option("--guard", opt->guard, "fail (exit 1) when a figure is worse than this thresholds file");
  sub.add_option("--write-band", opt->write_band, "write the error band table derived from the residuals");
  sub.add_option("--write-thresholds", opt->write_thresholds, "write today's figures as a thresholds file");
  sub.add_option("--timeline", opt->timeline_dir, "write a Chrome trace per entry into this directory");
  sub.add_option("--set", opt->parameters,
                 "override a simulator parameter, NAME=VALUE (trn::set_parameter names, e.g. dma_queues=1; "
                 "repeatable): calibration scans");
  sub.add_option("--lower", opt->lower,
                 "compiler-stage rules (ablations): all, none, or a list as for `accelopt profile --lower`");
  return [opt] { return run_fidelity(*opt); };
}

cli::CommandRegistrar reg("fidelity", "the simulator against the public real-hardware measurements (fidelity/)",
                          setup_fidelity);

}  // namespace
