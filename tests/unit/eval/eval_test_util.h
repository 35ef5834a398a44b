// Helpers for evaluation tests: the bundled tasks at small sizes (their kernels read every size
// from the argument shapes, so shrinking the reference's module constants shrinks the run).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/loader.h"
#include "eval/evaluate.h"
#include "eval/ref_cache.h"
#include "support/test_paths.h"

namespace eval_test {

inline std::string source_dir() { return ACCELOPT_SOURCE_DIR; }

inline std::string bundled_reference(const std::string& name) {
  return source_dir() + "/nkibench/reference/" + name + ".py";
}
inline std::string bundled_kernel(const std::string& name) { return source_dir() + "/nkibench/kernels/" + name + "_0.py"; }

// Rewrites module-level `NAME = <int>` lines of a reference.
inline std::string with_constants(std::string text, const std::map<std::string, int>& values) {
  for (const auto& [name, value] : values) {
    std::regex line("(^|\\n)" + name + " = \\d+");
    text = std::regex_replace(text, line, "$1" + name + " = " + std::to_string(value));
  }
  return text;
}

// The small configurations used by the fast checks (every kernel's tiling constraints hold).
inline const std::map<std::string, std::map<std::string, int>>& small_configs() {
  static const std::map<std::string, std::map<std::string, int>> configs = {
      {"matmul_M4096_N12288_K5120", {{"M", 256}, {"N", 2048}, {"K", 1024}}},
      {"transpose_matmul_M4096_K2048_N10944", {{"M", 256}, {"K", 256}, {"N", 1088}}},
      {"bmm_B16_M4096_K64_N4096", {{"B", 2}, {"M", 256}, {"N", 1024}}},
      {"bmm_softmax_B16_K64_M4096_N4096", {{"B", 2}, {"M", 256}, {"N", 1024}}},
      {"lora_M4096_N12288_K5120_R128", {{"M", 512}, {"N", 2048}, {"K", 1024}}},
      {"swiglu_M4096_N3072_K1024", {{"M", 512}, {"N", 1024}, {"K", 512}}},
      {"rmsnorm_matmul_M4096_N2048_K1024", {{"M", 256}, {"N", 1024}, {"K", 256}}},
      {"add_rmsnorm_matmul_M4096_N2048_K1024", {{"M", 256}, {"N", 1024}, {"K", 256}}},
      {"matmul_add_rmsnorm_M4096_N2048_K2048", {{"M", 256}, {"N", 1024}, {"K", 256}}},
      {"gqa_full_B1_N4096_QH16_KH8_D128", {{"N", 512}, {"QH", 4}, {"KH", 2}}},
      {"rope_single_freq_apply_B1_H64_N4096_D128", {{"H", 1}, {"N", 2048}}},
      {"silu_M4096_N7168", {{"M", 256}, {"N", 2048}}},
      {"adamw_M10944_N2048", {{"M", 300}, {"N", 2048}}},
      {"mamba_M7168_C256_S16", {{"M", 512}, {"S", 4}}},
  };
  return configs;
}

// The bundled cases by task_config name, e.g. "silu_M4096_N7168".
inline std::vector<std::string> case_names() {
  std::vector<std::string> out;
  for (const auto& [name, values] : small_configs()) out.push_back(name);
  return out;
}

// A check of `kernel_text` against the small version of a bundled reference, one seed.
inline eval::EvalRequest small_check(const std::string& name, const std::string& kernel_text) {
  eval::EvalRequest req;
  req.reference_path = bundled_reference(name);
  req.reference_text = with_constants(bench::read_file(req.reference_path), small_configs().at(name));
  req.kernel_path = bundled_kernel(name);
  req.kernel_text = kernel_text;
  req.seeds = {0};
  req.tolerance = name.rfind("mamba", 0) == 0 ? 3e-5 : 2e-5;
  req.limits.max_seconds = 60;
  req.profile = false;
  return req;
}

// The full-size checks (minutes) run only when ACCELOPT_FULL_NKIBENCH=1.
inline bool full_size_enabled() {
  const char* v = std::getenv("ACCELOPT_FULL_NKIBENCH");
  return v && std::string(v) == "1";
}

// The five-seed check of `kernel_path` (default: the case's own kernel) against the full-size
// bundled case `name`, with its tolerance and the default reference cache.
inline eval::Evaluation full_size_check(const std::string& name, std::string kernel_path = "") {
  bench::Suite suite = bench::load_suite(source_dir() + "/nkibench");
  auto it = std::find_if(suite.cases.begin(), suite.cases.end(), [&](auto& c) { return c.name() == name; });
  if (it == suite.cases.end()) throw std::invalid_argument("no bundled case " + name);
  eval::EvalRequest req;
  req.reference_path = it->reference_path;
  req.reference_text = bench::read_file(it->reference_path);
  req.kernel_path = kernel_path.empty() ? it->kernel_path : kernel_path;
  req.kernel_text = bench::read_file(req.kernel_path);
  req.tolerance = it->effective_tolerance();
  req.cache_dir = eval::default_ref_cache_dir();
  return eval::evaluate(req);
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// Replaces the first occurrence of `from` (which must exist) in `text`.
inline std::string mutate(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  if (pos == std::string::npos) return "<mutation target not found: " + from + ">";
  return text.replace(pos, from.size(), to);
}

}  // namespace eval_test
