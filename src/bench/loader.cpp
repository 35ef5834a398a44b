#include "bench/loader.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "nki/lib/kernel_choice.h"

namespace bench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool defines_function(const std::string& text, const std::string& name) {
  std::regex re("(^|\\n)[ \\t]*def[ \\t]+" + name + "[ \\t]*\\(");
  return std::regex_search(text, re);
}

std::string resolve(const std::string& root, const std::string& rel) {
  fs::path p(rel);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (fs::path(root) / p).lexically_normal().string();
}

// Parses the `values` object: integer sizes only (the peak formulas need integers).
std::string parse_values(const json& j, TaskValues& out) {
  if (!j.is_object()) return "'values' is not an object";
  for (auto& [key, value] : j.items()) {
    if (!value.is_number_integer()) return fmt::format("value '{}' is not an integer", key);
    out[key] = value.get<int64_t>();
  }
  return "";
}

class SuiteBuilder {
 public:
  SuiteBuilder(Suite& suite, std::string summary_path) : suite_(suite), summary_(std::move(summary_path)) {}

  void add_task(const std::string& task, const json& entry) {
    if (!entry.is_object()) return error(fmt::format("task '{}' is not an object", task));
    if (!entry.contains("cases") || !entry["cases"].is_object())
      return error(fmt::format("task '{}' has no 'cases' object", task));
    std::string seed;
    if (entry.contains("seed") && entry["seed"].is_string()) seed = resolve(suite_.root, entry["seed"].get<std::string>());
    for (auto& [config, body] : entry["cases"].items()) add_case(task, config, seed, body);
  }

 private:
  void error(const std::string& what) { suite_.errors.push_back(summary_ + ": " + what); }

  void add_case(const std::string& task, const std::string& config, const std::string& seed, const json& body) {
    std::string where = fmt::format("task '{}' case '{}'", task, config);
    if (!body.is_object()) return error(where + " is not an object");
    TaskCase c;
    c.task = task;
    c.config = config;
    c.seed_path = seed;
    if (!body.contains("values")) return error(where + " has no 'values'");
    if (auto bad = parse_values(body["values"], c.values); !bad.empty()) return error(where + ": " + bad);
    if (body.contains("tolerance")) {
      if (!body["tolerance"].is_number() || body["tolerance"].get<double>() <= 0)
        return error(where + ": 'tolerance' is not a positive number");
      c.tolerance = body["tolerance"].get<double>();
    }
    if (!body.contains("impls") || !body["impls"].is_array() || body["impls"].empty())
      return error(where + " has no 'impls' list");
    for (size_t idx = 0; idx < body["impls"].size(); ++idx) add_impl(c, where, idx, body["impls"][idx]);
  }

  void add_impl(TaskCase c, const std::string& where, size_t idx, const json& impl) {
    std::string at = fmt::format("{} impl {}", where, idx);
    if (!impl.is_object() || !impl.contains("task") || !impl["task"].is_string())
      return error(at + " has no 'task' (reference file)");
    if (!impl.contains("kernel") || !impl["kernel"].is_string()) return error(at + " has no 'kernel' file");
    c.reference_path = resolve(suite_.root, impl["task"].get<std::string>());
    c.kernel_path = resolve(suite_.root, impl["kernel"].get<std::string>());
    if (idx > 0) c.config += fmt::format("#{}", idx);
    if (!check_files(c)) return;
    suite_.cases.push_back(std::move(c));
  }

  bool check_files(const TaskCase& c) {
    std::string problem;
    try {
      problem = check_reference_text(c.reference_path, read_file(c.reference_path));
      if (problem.empty()) problem = check_kernel_text(c.kernel_path, read_file(c.kernel_path));
    } catch (const std::exception& e) {
      problem = e.what();
    }
    if (problem.empty()) return true;
    suite_.errors.push_back(problem);
    return false;
  }

  Suite& suite_;
  std::string summary_;
};

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) throw std::runtime_error(path + ": cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string check_reference_text(const std::string& path, const std::string& text) {
  for (const char* fn : {"get_inputs", "forward", "transform_to_nki_inputs", "transform_nki_outputs"})
    if (!defines_function(text, fn)) return fmt::format("{}: reference defines no function '{}'", path, fn);
  return "";
}

std::string check_kernel_text(const std::string& path, const std::string& text) {
  // One rule for the kernel to run, everywhere (the evaluation, optimize, the rewrites, the corpus
  // harness): nki::lib::choose_kernel, asked of the loaded module. A file that does not load is
  // left to the evaluation, which reports the error where it is, with its status.
  nki::lib::KernelChoice choice = nki::lib::choose_kernel(path, text);
  if (choice.load_error || choice.problem.kind == nki::lib::EntryProblem::Kind::None) return "";
  return fmt::format("{}: {}", path, choice.problem.message());
}

Suite load_suite(const std::string& root) {
  Suite suite;
  suite.root = root;
  std::string summary_path = (fs::path(root) / "summary.json").string();
  json summary;
  try {
    summary = json::parse(read_file(summary_path));
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", summary_path, e.what()));
  }
  if (!summary.is_object()) throw std::runtime_error(summary_path + ": expected a JSON object of tasks");
  SuiteBuilder builder(suite, summary_path);
  for (auto& [task, entry] : summary.items()) builder.add_task(task, entry);
  return suite;
}

std::string find_kernel_in(const std::string& dir, const TaskCase& c) {
  for (const std::string& name : {fs::path(c.kernel_path).filename().string(), c.task + ".py"}) {
    fs::path p = fs::path(dir) / name;
    if (fs::is_regular_file(p)) return p.string();
  }
  return "";
}

}  // namespace bench
