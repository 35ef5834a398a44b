// `accelopt bench`: check and profile every benchmark task (or a chosen subset, or the user's own
// kernels) and report latency against the peak estimate, then the geometric mean.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/bench_root.h"
#include "bench/loader.h"
#include "bench/report.h"
#include "cli/command.h"
#include "eval/evaluate.h"
#include "eval/executor.h"
#include "eval/executor_cli.h"
#include "eval/ref_cache.h"
#include "report/page.h"

namespace {

struct BenchOptions {
  std::string arch = "trn1", tasks, kernels, bench_root, seeds = "0,21,42,63,84", cache_dir;
  std::string html;  // --html FILE: the benchmark as a page (docs/report.md)
  double timeout = 900;
  bool json = false, csv = false, no_cache = false, quiet = false;
  // Tasks are evaluated by worker processes (local, default) or Slurm array tasks, or with
  // --in-process one after another in this process.
  eval::ExecutorConfig executor;
  bool in_process = false, job_timeout_given = false;
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

// The row of a case before evaluation; status "missing" when --kernels has no kernel for it.
bench::BenchRow start_row(const bench::TaskCase& c, const BenchOptions& opt) {
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
  return row;
}

eval::EvalRequest request_for(const bench::TaskCase& c, const bench::BenchRow& row, const BenchOptions& opt,
                              const std::vector<int>& seeds) {
  eval::EvalRequest req;
  req.kernel_path = row.kernel;
  req.reference_path = c.reference_path;
  req.arch = opt.arch;
  req.seeds = seeds;
  req.tolerance = c.effective_tolerance();
  req.cache_dir = opt.no_cache ? "" : (opt.cache_dir.empty() ? eval::default_ref_cache_dir() : opt.cache_dir);
  req.limits = eval::limits_for_cpu_seconds(opt.timeout);
  return req;
}

void finish_row(bench::BenchRow& row, const eval::Evaluation& e) {
  row.status = eval::to_string(e.status);
  row.correct = e.correct;
  row.profile = e.profile;
  row.diagnostics = e.diagnostics;
  for (const auto& s : e.seeds) row.rel_l2 = std::max(row.rel_l2, s.rel_l2);
}

void print_progress(const bench::BenchRow& row, size_t done, size_t total, const BenchOptions& opt) {
  if (!opt.quiet)
    fmt::print(stderr, "[{}/{}] {} {}: {} ({:.1f} s)\n", done, total, row.task, row.config, row.status, row.seconds);
  if (!row.correct)
    for (const auto& d : row.diagnostics) fmt::print(stderr, "{}\n", d);
}

// One case after another in this process.
std::vector<bench::BenchRow> run_in_process(const std::vector<bench::TaskCase>& cases, const BenchOptions& opt,
                                            const std::vector<int>& seeds) {
  std::vector<bench::BenchRow> rows;
  for (const auto& c : cases) {
    bench::BenchRow row = start_row(c, opt);
    if (row.status.empty()) {
      auto start = std::chrono::steady_clock::now();
      finish_row(row, eval::evaluate(request_for(c, row, opt, seeds)));
      row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    rows.push_back(std::move(row));
    print_progress(rows.back(), rows.size(), cases.size(), opt);
  }
  return rows;
}

// The evaluation directory of an executor run: --eval-dir, else a fresh directory removed at the
// end (in $TMPDIR for local workers; in the working directory for Slurm, whose nodes must see it).
class EvalDir {
 public:
  explicit EvalDir(const eval::ExecutorConfig& config) {
    if (!config.run_dir.empty()) {
      path_ = config.run_dir;
      return;
    }
    namespace fs = std::filesystem;
    fs::path base = config.kind == "slurm" ? fs::current_path() : fs::temp_directory_path();
    std::string pattern = (base / "accelopt-bench-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create an evaluation directory in " + base.string());
    path_ = pattern;
    owned_ = true;
  }
  ~EvalDir() {
    std::error_code ec;
    if (owned_) std::filesystem::remove_all(path_, ec);
  }
  EvalDir(const EvalDir&) = delete;
  EvalDir& operator=(const EvalDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = false;
};

// Every case as one job of one executor batch: in parallel worker processes or Slurm tasks.
// A row's seconds are the time from the start of the batch until its result arrived.
std::vector<bench::BenchRow> run_with_executor(const std::vector<bench::TaskCase>& cases, const BenchOptions& opt,
                                               const std::vector<int>& seeds) {
  std::vector<bench::BenchRow> rows;
  std::vector<eval::EvalJob> jobs;
  std::vector<size_t> row_of_job;
  for (const auto& c : cases) {
    rows.push_back(start_row(c, opt));
    bench::BenchRow& row = rows.back();
    if (!row.status.empty()) continue;
    eval::EvalJob job;
    job.id = std::to_string(rows.size() - 1);
    job.request = request_for(c, row, opt, seeds);
    // The executor needs the texts; an unreadable kernel is this row's compile error (as in
    // eval::evaluate), not a failure of the whole benchmark.
    try {
      job.request.kernel_text = bench::read_file(job.request.kernel_path);
      job.request.reference_text = bench::read_file(job.request.reference_path);
    } catch (const std::exception& e) {
      eval::Evaluation failed;
      failed.status = job.request.kernel_text.empty() ? eval::Status::CompileError : eval::Status::InternalError;
      failed.diagnostics.push_back(fmt::format("error: {}", e.what()));
      finish_row(row, failed);
      continue;
    }
    jobs.push_back(std::move(job));
    row_of_job.push_back(rows.size() - 1);
  }
  size_t done = 0;
  for (const auto& row : rows)
    if (!row.status.empty()) print_progress(row, ++done, cases.size(), opt);
  if (jobs.empty()) return rows;

  EvalDir dir(opt.executor);
  eval::ExecutorConfig config = opt.executor;
  config.run_dir = dir.path();
  // A worker must outlive the evaluation's own time limit, which reports a clean timeout.
  if (!opt.job_timeout_given)
    config.job_timeout_s = std::max(config.job_timeout_s, eval::limits_for_cpu_seconds(opt.timeout).max_seconds + 60);
  auto executor = eval::make_executor(config);
  auto start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::vector<double> finished_at(rows.size(), 0);
  std::vector<eval::Evaluation> results = executor->run(jobs, [&](const std::string& id, const eval::Evaluation& e) {
    std::lock_guard<std::mutex> lock(mutex);
    size_t idx = std::stoul(id);
    bench::BenchRow row = rows[idx];
    row.seconds = finished_at[idx] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    finish_row(row, e);
    print_progress(row, ++done, cases.size(), opt);
  });
  for (size_t job_idx = 0; job_idx < jobs.size() && job_idx < results.size(); ++job_idx) {
    bench::BenchRow& row = rows[row_of_job[job_idx]];
    finish_row(row, results[job_idx]);
    row.seconds = finished_at[row_of_job[job_idx]];
  }
  return rows;
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
  report.rows = opt.in_process ? run_in_process(cases, opt, seeds) : run_with_executor(cases, opt, seeds);
  if (opt.json) fmt::print("{}\n", eval::json_text(bench::to_json(report), 2));
  else if (opt.csv) fmt::print("{}", bench::render_csv(report));
  else fmt::print("{}", bench::render_table(report));
  if (!opt.html.empty()) {
    report::write_page(opt.html, report::render_page(report::bench_page_data(bench::to_json(report)),
                                                     fmt::format("accelopt bench ({})", opt.arch)));
    fmt::print(stderr, "report: {}\n", opt.html);
  }
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
  sub.add_option("--timeout", opt->timeout, "CPU-time limit per task, seconds (wall-clock backstop: 4x; docs/evaluation.md)")->check(cli::finite_positive());
  sub.add_option("--cache-dir", opt->cache_dir, "reference-output cache directory");
  sub.add_flag("--no-cache", opt->no_cache, "do not read or write cached reference outputs");
  auto* json = sub.add_flag("--json", opt->json, "print JSON");
  sub.add_flag("--csv", opt->csv, "print CSV")->excludes(json);
  sub.add_flag("--quiet", opt->quiet, "no per-task progress on stderr");
  sub.add_option("--html", opt->html, "also write the benchmark as a self-contained HTML page to this file");
  eval::add_executor_options(sub, opt->executor);
  // Worker processes by default (two, --workers N) so that both cores check tasks (the warm full
  // benchmark takes ~120 s on 2 cores, ~220 s on one); --in-process keeps peak memory to one task.
  sub.add_flag("--in-process", opt->in_process, "check the tasks one after another in this process (no workers)")
      ->excludes(sub.get_option("--executor"));
  return [opt, &sub] {
    opt->job_timeout_given = sub.count("--job-timeout") > 0;
    return run_bench(*opt);
  };
}

cli::CommandRegistrar reg("bench", "check and profile the benchmark tasks; percent of peak and geomean",
                          setup_bench);

}  // namespace
