// `accelopt bench`: check and profile every benchmark task (or a chosen subset, or the user's own
// kernels) and report latency against the peak estimate, then the geometric mean.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/bench_root.h"
#include "bench/loader.h"
#include "bench/ref_cache.h"
#include "bench/report.h"
#include "cli/command.h"
#include "eval/evaluate.h"

namespace {

struct BenchOptions {
  std::string arch = "trn1", tasks, kernels, bench_root, seeds = "0,21,42,63,84", cache_dir;
  double timeout = 900;
  bool json = false, csv = false, no_cache = false, quiet = false;
};

std::set<std::string> split_names(const std::string& text) {
  std::set<std::string> names;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) names.insert(item);
  return names;
}

std::vector<bench::TaskCase> select_cases(const bench::Suite& suite, const BenchOptions& opt) {
  std::set<std::string> wanted = split_names(opt.tasks);
  std::vector<bench::TaskCase> cases;
  for (const auto& c : suite.cases)
    if (wanted.empty() || wanted.count(c.task) || wanted.count(c.name())) cases.push_back(c);
  for (const auto& name : wanted) {
    bool known = std::any_of(suite.cases.begin(), suite.cases.end(),
                             [&](auto& c) { return c.task == name || c.name() == name; });
    if (!known) throw std::invalid_argument(fmt::format("--tasks: no task named '{}' in {}", name, suite.root));
  }
  return cases;
}

bench::BenchRow run_case(const bench::TaskCase& c, const BenchOptions& opt, const std::vector<int>& seeds) {
  bench::BenchRow row;
  row.task = c.task;
  row.config = c.config;
  row.kernel = c.kernel_path;
  if (!opt.kernels.empty()) {
    row.kernel = bench::find_kernel_in(opt.kernels, c);
    if (row.kernel.empty()) {
      row.status = "missing";
      row.diagnostics.push_back(fmt::format("{}: no {} or {}.py", opt.kernels,
                                            std::filesystem::path(c.kernel_path).filename().string(), c.task));
      return row;
    }
  }
  if (bench::has_peak_formula(c.task)) row.peak = bench::estimate_peak(c.task, c.values, bench::peak_constants(opt.arch));
  eval::EvalRequest req;
  req.kernel_path = row.kernel;
  req.reference_path = c.reference_path;
  req.arch = opt.arch;
  req.seeds = seeds;
  req.tolerance = c.effective_tolerance();
  req.cache_dir = opt.no_cache ? "" : (opt.cache_dir.empty() ? bench::default_ref_cache_dir() : opt.cache_dir);
  req.limits.max_seconds = opt.timeout;
  auto start = std::chrono::steady_clock::now();
  eval::Evaluation e = eval::evaluate(req);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.status = eval::to_string(e.status);
  row.correct = e.correct;
  row.profile = e.profile;
  row.diagnostics = e.diagnostics;
  for (const auto& s : e.seeds) row.rel_l2 = std::max(row.rel_l2, s.rel_l2);
  return row;
}

int run_bench(const BenchOptions& opt) {
  std::string root = opt.bench_root.empty() ? bench::default_bench_root() : opt.bench_root;
  if (root.empty()) throw std::runtime_error("no benchmark directory found; pass --bench-root DIR");
  std::vector<int> seeds = bench::parse_seeds(opt.seeds);
  bench::Suite suite = bench::load_suite(root);
  bench::BenchReport report;
  report.arch = opt.arch;
  report.peak_description = bench::peak_constants(opt.arch).description;
  report.errors = suite.errors;
  for (const auto& e : suite.errors) fmt::print(stderr, "error: {}\n", e);
  std::vector<bench::TaskCase> cases = select_cases(suite, opt);
  for (const auto& c : cases) {
    report.rows.push_back(run_case(c, opt, seeds));
    const auto& row = report.rows.back();
    if (!opt.quiet)
      fmt::print(stderr, "[{}/{}] {} {}: {} ({:.1f} s)\n", report.rows.size(), cases.size(), row.task,
                 row.config, row.status, row.seconds);
    if (!row.correct)
      for (const auto& d : row.diagnostics) fmt::print(stderr, "{}\n", d);
  }
  if (opt.json) fmt::print("{}\n", bench::to_json(report).dump(2));
  else if (opt.csv) fmt::print("{}", bench::render_csv(report));
  else fmt::print("{}", bench::render_table(report));
  bool all_ok = suite.errors.empty() &&
                std::all_of(report.rows.begin(), report.rows.end(), [](auto& r) { return r.correct; });
  return all_ok ? 0 : 1;
}

cli::RunFn setup_bench(CLI::App& sub) {
  auto opt = std::make_shared<BenchOptions>();
  sub.add_option("--arch", opt->arch, "simulated NeuronCore and peak constants")
      ->check(CLI::IsMember({"trn1", "trn2"}));
  sub.add_option("--tasks", opt->tasks, "comma-separated task names (default: all)");
  sub.add_option("--kernels", opt->kernels, "directory of kernels to run instead of the bundled ones "
                                            "(<task>_<config>_0.py or <task>.py)");
  sub.add_option("--bench-root", opt->bench_root, "benchmark directory in the NKIBench layout");
  sub.add_option("--seeds", opt->seeds, "comma-separated numpy seeds");
  sub.add_option("--timeout", opt->timeout, "wall-time limit per task, seconds")->check(CLI::PositiveNumber);
  sub.add_option("--cache-dir", opt->cache_dir, "reference-output cache directory");
  sub.add_flag("--no-cache", opt->no_cache, "do not read or write cached reference outputs");
  auto* json = sub.add_flag("--json", opt->json, "print JSON");
  sub.add_flag("--csv", opt->csv, "print CSV")->excludes(json);
  sub.add_flag("--quiet", opt->quiet, "no per-task progress on stderr");
  return [opt] { return run_bench(*opt); };
}

cli::CommandRegistrar reg("bench", "check and profile the benchmark tasks; percent of peak and geomean",
                          setup_bench);

}  // namespace
