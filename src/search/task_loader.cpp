#include "search/task_loader.h"

#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "bench/arg_specs.h"
#include "eval/profile_run.h"
#include "bench/loader.h"
#include "bench/peak.h"

namespace search {

namespace {

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) names.push_back(item);
  return names;
}

std::optional<bench::PeakEstimate> peak_of(const bench::TaskCase& c, const std::string& arch) {
  if (!bench::has_peak_formula(c.task)) return std::nullopt;
  try {
    return bench::estimate_peak(c.task, c.values, bench::peak_constants(arch));
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a case without the values the formula needs: no percentage of peak
  }
}

// `kernel_path`: the baseline (the case's own kernel, or the one --kernels found for it).
TaskSpec to_spec(const bench::TaskCase& c, const std::string& kernel_path, const std::string& arch) {
  TaskSpec spec;
  spec.info.name = c.name();
  spec.info.reference_text = bench::read_file(c.reference_path);
  spec.info.baseline_text = bench::read_file(kernel_path);
  // The name the search writes candidates under stays the benchmark's, whatever the baseline file
  // is called in --kernels (a <task>.py there is still this case's kernel).
  spec.info.kernel_file_name = std::filesystem::path(c.kernel_path).filename().string();
  spec.info.arch = arch;
  if (auto peak = peak_of(c, arch)) {
    spec.info.peak_latency_ms = peak->latency_ms;
    spec.info.firm_peak_ms = peak->firm_latency_ms();
  }
  try {
    // Shape-only: the reference's inputs cost nothing per element.
    spec.info.kernel_args = eval::reference_arg_specs(c.reference_path, spec.info.reference_text);
  } catch (const std::runtime_error&) {
    // A reference that fails here fails its evaluation too; the agent works without the form.
  }
  spec.reference_path = c.reference_path;
  spec.baseline_path = kernel_path;
  spec.tolerance = c.effective_tolerance();
  return spec;
}

}  // namespace

std::vector<TaskSpec> load_tasks(const std::string& bench_root, const std::string& selection, const std::string& arch,
                                 std::vector<std::string>& warnings, const std::string& kernels_dir) {
  bench::Suite suite = bench::load_suite(bench_root);
  warnings.insert(warnings.end(), suite.errors.begin(), suite.errors.end());
  bool all = selection == "all";
  std::vector<std::string> wanted = split_names(selection);
  if (!all && wanted.empty()) throw std::invalid_argument("no task given: use --task T, --tasks a,b or --tasks all");
  if (!kernels_dir.empty() && !std::filesystem::is_directory(kernels_dir))
    throw std::invalid_argument(fmt::format("--kernels {}: not a directory", kernels_dir));
  // Tasks run in the order given (memory carries from one task to the next, so order matters);
  // 'all' is the benchmark's order. A case named twice (as task and task_config) runs once.
  std::vector<TaskSpec> specs;
  std::set<std::string> taken;
  // A named task's kernel that cannot be used is an error; with 'all' the task is skipped.
  auto refuse = [&](const std::string& message) {
    if (!all) throw std::invalid_argument(message);
    warnings.push_back(message + " (skipped)");
  };
  auto take = [&](const bench::TaskCase& c) {
    if (!taken.insert(c.name()).second) return;
    std::string kernel = c.kernel_path;
    if (!kernels_dir.empty()) {
      kernel = bench::find_kernel_in(kernels_dir, c);
      if (kernel.empty())
        return refuse(fmt::format("--kernels {}: no {} or {}.py for task {}", kernels_dir,
                                  std::filesystem::path(c.kernel_path).filename().string(), c.task, c.name()));
      // A task's kernel file names the one kernel it runs (the benchmark's own files are checked
      // as the suite loads): several kernels and none named 'kernel' is refused before the run
      // starts, with the rule (`kernel = NAME`), never guessed.
      if (std::string problem = bench::check_kernel_text(kernel, bench::read_file(kernel)); !problem.empty())
        return refuse(fmt::format("--kernels {}: {}", kernels_dir, problem));
    }
    specs.push_back(to_spec(c, kernel, arch));
  };
  if (all) {
    for (const auto& c : suite.cases) take(c);
    return specs;
  }
  for (const auto& name : wanted) {
    bool known = false;
    for (const auto& c : suite.cases)
      if (c.task == name || c.name() == name) {
        known = true;
        take(c);
      }
    if (!known) throw std::invalid_argument(fmt::format("no task named '{}' in {}", name, suite.root));
  }
  return specs;
}

}  // namespace search
