#include "bench/arg_specs.h"

#include <filesystem>

#include "bench/bench_root.h"
#include "bench/loader.h"
#include "nki/lib/array_value.h"

namespace bench {

std::vector<loopnest::ArgSpec> arg_specs(const std::vector<nki::Value>& args) {
  std::vector<loopnest::ArgSpec> out;
  for (const auto& v : args) {
    loopnest::ArgSpec s;
    const std::vector<nki::Value>* items = nullptr;
    if (auto* t = v.as<nki::TupleObj>()) items = &t->items;
    if (auto* l = v.as<nki::ListObj>()) items = &l->items;
    if (items) {
      s.is_array = false;
      s.is_tuple = true;
      s.items = arg_specs(*items);
    } else if (auto* a = v.as<nki::lib::NdArrayObj>(); a && !a->is_scalar) {
      s.shape.assign(a->array.shape().begin(), a->array.shape().end());
      s.dtype = std::string(tensor::name(a->array.dtype()));
    } else {
      s.is_array = false;
      if (v.is_int()) s.scalar = static_cast<double>(v.as_int()), s.dtype = "int";
      else if (v.is_float()) s.scalar = v.as_float(), s.dtype = "float";
      else if (auto* n = v.as<nki::lib::NdArrayObj>()) s.scalar = n->array.get({}), s.dtype = "float";
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

namespace fs = std::filesystem;

// The benchmark suites to search for a file, nearest first: every ancestor of `file` holding
// summary.json (a file named after the task counts only there), then `bench_root`, then the
// default root. Calls `visit(suite, by_task)` until it returns true.
template <typename Visit>
void for_each_suite(const fs::path& file, const std::string& bench_root, Visit visit) {
  std::error_code ec;
  std::vector<std::pair<std::string, bool>> roots;
  for (fs::path dir = file.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (fs::is_regular_file(dir / "summary.json", ec)) roots.push_back({dir.string(), true});
  if (!bench_root.empty()) roots.push_back({bench_root, false});
  if (std::string root = default_bench_root(); !root.empty()) roots.push_back({root, false});
  for (const auto& [root, by_task] : roots) {
    Suite suite;
    try {
      suite = load_suite(root);
    } catch (const std::runtime_error&) {
      continue;
    }
    if (visit(suite, by_task)) return;
  }
}

}  // namespace

std::string reference_for_kernel(const std::string& kernel_path, const std::string& bench_root) {
  std::error_code ec;
  fs::path file = fs::absolute(kernel_path, ec);
  // A reference beside the kernel, as the kernel corpus keeps them (tests/kernels/corpus/).
  if (fs::path beside = file.parent_path() / (file.stem().string() + ".ref.py"); fs::is_regular_file(beside, ec))
    return beside.string();
  std::string name = file.filename().string(), stem = file.stem().string(), found;
  for_each_suite(file, bench_root, [&](const Suite& suite, bool by_task) {
    for (const auto& c : suite.cases)
      if (fs::path(c.kernel_path).filename().string() == name || (by_task && c.task == stem)) {
        found = c.reference_path;
        return true;
      }
    return false;
  });
  return found;
}

std::optional<TaskCase> case_for_reference(const std::string& reference_path, const std::string& bench_root) {
  std::error_code ec;
  fs::path file = fs::absolute(reference_path, ec);
  std::optional<TaskCase> found;
  for_each_suite(file, bench_root, [&](const Suite& suite, bool) {
    for (const auto& c : suite.cases)
      if (fs::equivalent(c.reference_path, file, ec)) {
        found = c;
        return true;
      }
    return false;
  });
  return found;
}

}  // namespace bench
