// `accelopt tasks`: the benchmark's tasks with their configurations and peak latencies.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/bench_root.h"
#include "bench/loader.h"
#include "bench/peak.h"
#include "cli/command.h"

namespace {

struct TasksOptions {
  std::string bench_root;
  std::string arch = "trn1";
  bool json = false;
};

nlohmann::json case_json(const bench::TaskCase& c, const bench::PeakConstants& peak) {
  nlohmann::json j = {{"task", c.task}, {"config", c.config}, {"values", c.values},
                      {"reference", c.reference_path}, {"kernel", c.kernel_path},
                      {"tolerance", c.effective_tolerance()}};
  if (bench::has_peak_formula(c.task)) {
    auto e = bench::estimate_peak(c.task, c.values, peak);
    j["peak_latency"] = e.latency_ms;
    j["bound"] = e.bound;
  }
  return j;
}

int run_tasks(const TasksOptions& opt) {
  std::string root = opt.bench_root.empty() ? bench::default_bench_root() : opt.bench_root;
  if (root.empty()) throw std::runtime_error("no benchmark directory found; pass --bench-root DIR");
  const auto& peak = bench::peak_constants(opt.arch);
  bench::Suite suite = bench::load_suite(root);
  for (const auto& e : suite.errors) fmt::print(stderr, "error: {}\n", e);
  if (opt.json) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& c : suite.cases) {
      try {
        tasks.push_back(case_json(c, peak));
      } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
      }
    }
    fmt::print("{}\n", nlohmann::json{{"arch", opt.arch}, {"peak_constants", peak.description},
                                      {"tasks", tasks}, {"errors", suite.errors}}.dump(2));
    return suite.errors.empty() ? 0 : 1;
  }
  fmt::print("{}\n{:<24} {:<36} {:>12} {:>7}\n", peak.description, "task", "config", "peak_ms", "bound");
  for (const auto& c : suite.cases) {
    try {
      auto e = bench::estimate_peak(c.task, c.values, peak);
      fmt::print("{:<24} {:<36} {:>12.4f} {:>7}\n", c.task, c.config, e.latency_ms, e.bound);
    } catch (const std::exception& e) {
      fmt::print("{:<24} {:<36} {:>12} {:>7}\n", c.task, c.config, "-", "-");
      fmt::print(stderr, "error: {}\n", e.what());
    }
  }
  return suite.errors.empty() ? 0 : 1;
}

cli::RunFn setup_tasks(CLI::App& sub) {
  auto opt = std::make_shared<TasksOptions>();
  sub.add_option("--bench-root", opt->bench_root, "benchmark directory in the NKIBench layout (default: bundled nkibench/)");
  sub.add_option("--arch", opt->arch, "peak constants to use")->check(CLI::IsMember({"trn1", "trn2"}));
  sub.add_flag("--json", opt->json, "print JSON");
  return [opt] { return run_tasks(*opt); };
}

cli::CommandRegistrar reg("tasks", "list benchmark tasks with their configurations and peak latencies", setup_tasks);

}  // namespace
