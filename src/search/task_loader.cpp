#include "search/task_loader.h"

#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

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

double peak_latency_ms(const bench::TaskCase& c, const std::string& arch) {
  if (!bench::has_peak_formula(c.task)) return 0;
  try {
    return bench::estimate_peak(c.task, c.values, bench::peak_constants(arch)).latency_ms;
  } catch (const std::invalid_argument&) {
    return 0;  // a case without the values the formula needs: no percentage of peak
  }
}

TaskSpec to_spec(const bench::TaskCase& c, const std::string& arch) {
  TaskSpec spec;
  spec.info.name = c.name();
  spec.info.reference_text = bench::read_file(c.reference_path);
  spec.info.baseline_text = bench::read_file(c.kernel_path);
  spec.info.kernel_file_name = std::filesystem::path(c.kernel_path).filename().string();
  spec.info.arch = arch;
  spec.info.peak_latency_ms = peak_latency_ms(c, arch);
  spec.reference_path = c.reference_path;
  spec.baseline_path = c.kernel_path;
  spec.tolerance = c.effective_tolerance();
  return spec;
}

}  // namespace

std::vector<TaskSpec> load_tasks(const std::string& bench_root, const std::string& selection, const std::string& arch,
                                 std::vector<std::string>& warnings) {
  bench::Suite suite = bench::load_suite(bench_root);
  warnings.insert(warnings.end(), suite.errors.begin(), suite.errors.end());
  bool all = selection == "all";
  std::vector<std::string> wanted = split_names(selection);
  if (!all && wanted.empty()) throw std::invalid_argument("no task given: use --task T, --tasks a,b or --tasks all");
  // Tasks run in the order given (memory carries from one task to the next, so order matters);
  // 'all' is the benchmark's order. A case named twice (as task and task_config) runs once.
  std::vector<TaskSpec> specs;
  std::set<std::string> taken;
  auto take = [&](const bench::TaskCase& c) {
    if (taken.insert(c.name()).second) specs.push_back(to_spec(c, arch));
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
