// Dispatch overhead and throughput of the evaluation executors (local worker pool vs Slurm job
// arrays), measured with no-op jobs (a TEST HOOK returns a canned Evaluation), so the figures
// are the service's own cost, not the evaluator's.
//
//   bench_dispatch [--binary PATH/accelopt] [--jobs N] [--reps R] [--slurm] [--eval-s S]
//
// Prints, per executor: median wall time of a round of N jobs, throughput (jobs/s) and the
// overhead per job; with --eval-s S each job also sleeps S seconds (a stand-in evaluation).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "eval/executor.h"

namespace {

struct Options {
  std::string binary;
  int jobs = 32, reps = 3, workers = 2;
  bool slurm = false;
  double eval_s = 0;
};

std::string default_binary() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "accelopt";
  auto exe = std::filesystem::path(std::string(path, static_cast<size_t>(n)));
  return (exe.parent_path().parent_path() / "src/cli/accelopt").string();
}

Options parse(int argc, char** argv) {
  Options o;
  o.binary = default_binary();
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    std::string a = argv[arg_idx];
    auto next = [&] { return arg_idx + 1 < argc ? std::string(argv[++arg_idx]) : std::string(); };
    if (a == "--binary") o.binary = next();
    else if (a == "--jobs") o.jobs = std::stoi(next());
    else if (a == "--reps") o.reps = std::stoi(next());
    else if (a == "--workers") o.workers = std::stoi(next());
    else if (a == "--slurm") o.slurm = true;
    else if (a == "--eval-s") o.eval_s = std::stod(next());
    else throw std::runtime_error("unknown argument " + a);
  }
  return o;
}

// N distinct jobs (distinct kernels, so dedup does not collapse them); `round` salts the kernels
// so every repetition evaluates fresh jobs instead of reading earlier results.
std::vector<eval::EvalJob> make_jobs(const Options& o, int round) {
  std::vector<eval::EvalJob> jobs;
  nlohmann::json hook = {{"result", {{"status", "ok"}, {"correct", true}, {"profile", {{"latency", 1.0}}}}}};
  if (o.eval_s > 0) hook["sleep_s"] = o.eval_s;
  for (int job_idx = 0; job_idx < o.jobs; ++job_idx) {
    eval::EvalJob job;
    job.id = fmt::format("j{}", job_idx);
    job.request.kernel_text = fmt::format("k = {}  \nround = {}\n", job_idx, round);
    job.request.reference_text = "def forward():\n    return 0\n";
    job.test_hook_json = hook.dump();
    jobs.push_back(job);
  }
  return jobs;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double time_round(const Options& o, const std::string& kind, const std::string& dir, int round) {
  eval::ExecutorConfig c;
  c.kind = kind;
  c.run_dir = dir;
  c.worker_binary = o.binary;
  c.workers = o.workers;
  c.poll_interval_s = 0.2;
  c.time_limit_minutes = 5;
  auto executor = eval::make_executor(c);
  auto jobs = make_jobs(o, round);
  auto start = std::chrono::steady_clock::now();
  auto results = executor->run(jobs, nullptr);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& r : results)
    if (r.status != eval::Status::Ok) throw std::runtime_error("a bench job failed: " + r.diagnostics.at(0));
  return wall;
}

void bench(const Options& o, const std::string& kind) {
  std::string dir = fmt::format("/tmp/accelopt-bench-dispatch-{}-{}", kind, ::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  std::vector<double> walls;
  for (int rep = 0; rep < o.reps; ++rep) walls.push_back(time_round(o, kind, dir, rep));
  std::filesystem::remove_all(dir);
  double wall = median(walls);
  double ideal = o.eval_s * o.jobs / (kind == "local" ? o.workers : 1);  // local: W at a time
  fmt::print("{:6} jobs={:4} eval_s={:.2f} workers={} median_wall_s={:.3f} (min {:.3f} max {:.3f}) "
             "throughput_jobs_per_s={:.2f} overhead_per_job_ms={:.1f}\n",
             kind, o.jobs, o.eval_s, kind == "local" ? o.workers : 0, wall, *std::min_element(walls.begin(), walls.end()),
             *std::max_element(walls.begin(), walls.end()), o.jobs / wall,
             kind == "local" ? (wall - ideal) * 1000.0 * o.workers / o.jobs : (wall - 0) * 1000.0 / o.jobs);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    bench(o, "local");
    if (o.slurm) bench(o, "slurm");
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_dispatch: {}\n", e.what());
    return 1;
  }
  return 0;
}
