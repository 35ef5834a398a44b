// How long the check (eval::evaluate) takes per kernel, in CPU seconds of the evaluating thread
// (what the check's time limit counts, docs/evaluation.md "Limits") and in wall seconds, medians
// of several repetitions. The reference outputs come from a private cache filled by a warm-up
// run, so the figure is the kernel's side of the check: get_inputs, the kernel's numerics run(s),
// the comparison, and the trace -> lower -> simulate of the profiled seed.
//
//   build/bench/bench_check_speed [--reps N] [--seeds 0,21] [--no-profile] KERNEL_OR_DIR...
//
// A kernel X.py in tests/kernels/corpus uses X.ref.py; a kernel TASK_..._N.py anywhere else uses
// nkibench/reference/TASK_... .py (the NKIBench layout, as `accelopt bench` pairs them).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/task_case.h"
#include "eval/evaluate.h"

namespace fs = std::filesystem;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

// The reference of a kernel file, or "" when none is found.
fs::path reference_of(const fs::path& kernel) {
  fs::path beside = kernel.parent_path() / (kernel.stem().string() + ".ref.py");
  if (fs::exists(beside)) return beside;
  std::string stem = kernel.stem().string();
  std::string task = stem.substr(0, stem.rfind('_'));  // drop the "_0" variant suffix
  fs::path nkibench = fs::path(ACCELOPT_SOURCE_DIR) / "nkibench" / "reference" / (task + ".py");
  return fs::exists(nkibench) ? nkibench : fs::path();
}

std::vector<fs::path> kernels_of(const std::vector<std::string>& args) {
  std::vector<fs::path> out;
  for (const auto& a : args) {
    if (!fs::is_directory(a)) {
      out.emplace_back(a);
      continue;
    }
    std::vector<fs::path> dir;
    for (const auto& e : fs::directory_iterator(a)) {
      std::string name = e.path().filename().string();
      if (e.path().extension() == ".py" && name.find(".ref.") == std::string::npos) dir.push_back(e.path());
    }
    std::sort(dir.begin(), dir.end());
    out.insert(out.end(), dir.begin(), dir.end());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::string seeds = "0";
  bool profile = true;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--seeds" && i + 1 < argc) seeds = argv[++i];
    else if (a == "--no-profile") profile = false;
    else paths.push_back(a);
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: bench_check_speed [--reps N] [--seeds 0,21] [--no-profile] KERNEL_OR_DIR...\n");
    return 2;
  }
  fs::path cache = fs::temp_directory_path() / "accelopt_check_speed_refs";
  std::printf("%-58s %-8s %10s %10s %12s\n", "kernel", "status", "cpu_s", "wall_s", "instructions");
  for (const fs::path& kernel : kernels_of(paths)) {
    fs::path reference = reference_of(kernel);
    std::string name = kernel.parent_path().filename().string() + "/" + kernel.filename().string();
    if (reference.empty()) {
      std::printf("%-58s no reference found\n", name.c_str());
      continue;
    }
    eval::EvalRequest req;
    req.kernel_path = kernel.string();
    req.reference_path = reference.string();
    req.seeds = bench::parse_seeds(seeds);
    req.profile = profile;
    req.cache_dir = cache.string();
    eval::evaluate(req);  // warm-up: fills the reference cache
    std::vector<double> cpu, wall;
    eval::Evaluation e;
    for (int r = 0; r < reps; ++r) {
      double c0 = thread_cpu_seconds();
      auto w0 = std::chrono::steady_clock::now();
      e = eval::evaluate(req);
      cpu.push_back(thread_cpu_seconds() - c0);
      wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    }
    std::printf("%-58s %-8s %10.3f %10.3f %12llu\n", name.c_str(), eval::to_string(e.status), median(cpu),
                median(wall), e.profile ? (unsigned long long)e.profile->instructions : 0ULL);
    std::fflush(stdout);
  }
  return 0;
}
