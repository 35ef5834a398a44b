// Test support for the built-in agent: golden rewrite files (tests/golden/rewrite/) and running a
// kernel source on the interpreter with the inputs its "# inputs: 128x512 ..." header names.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../nkilib/kernel_harness.h"
#include "agents/builtin/transform.h"
#include "loopnest/arg_spec.h"
#include "support/test_paths.h"

namespace builtin_test {

inline std::string golden_dir() { return std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/rewrite"; }

// The sites of one transformation that the catalogue finds in `source`.
inline std::vector<agents::builtin::Site> sites_of(const std::string& source, const std::string& transform) {
  std::vector<agents::builtin::Site> out;
  for (auto& s : agents::builtin::find_sites(source))
    if (s.transform == transform) out.push_back(s);
  return out;
}

inline std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A task's kernel in one of the three styles ("bundled", "legacy_grid", "nki_api"; `task` is the
// kernel file's name without `_0.py`).
inline std::string style_kernel(const std::string& style, const std::string& task) {
  std::string dir = style == "bundled" ? "/nkibench/kernels/" : "/nkibench/styles/" + style + "/";
  return read(std::string(ACCELOPT_SOURCE_DIR) + dir + task + "_0.py");
}

// Array arguments of these shapes (float32), as a task passes them to its kernel.
inline std::vector<loopnest::ArgSpec> arrays(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<loopnest::ArgSpec> out;
  for (const auto& s : shapes) {
    loopnest::ArgSpec a;
    a.shape = s;
    out.push_back(a);
  }
  return out;
}

// Simulated latency (ms) of a kernel text on a bundled NKIBench task, through `accelopt profile`
// (trace-only). The file name is unique per process and test: ctest runs tests in parallel.
inline double simulated_ms(const std::string& task, const std::string& kernel_text) {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string path = testing::TempDir() + "/profile_" + std::to_string(::getpid()) + "_" +
                     (info ? info->name() : "kernel") + "_" + task + ".py";
  std::ofstream(path) << kernel_text;
  std::string cmd = std::string(ACCELOPT_BINARY) + " profile --json --reference " + ACCELOPT_SOURCE_DIR +
                    "/nkibench/reference/" + task + ".py --kernel " + path + " 2>/dev/null";
  std::string out;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    char buf[4096];
    while (pipe && fgets(buf, sizeof buf, pipe.get())) out += buf;
  }
  std::remove(path.c_str());
  if (out.empty()) throw std::runtime_error("accelopt profile printed nothing for " + task);
  return nlohmann::json::parse(out).at("latency").get<double>();
}

// Shapes from the first line "# inputs: 128x2x1024 128x512".
inline std::vector<tensor::Shape> input_shapes(const std::string& source) {
  std::vector<tensor::Shape> shapes;
  std::string first = source.substr(0, source.find('\n'));
  const std::string tag = "# inputs:";
  if (first.rfind(tag, 0) != 0) return shapes;
  std::stringstream words(first.substr(tag.size()));
  std::string word;
  while (words >> word) {
    tensor::Shape shape;
    std::stringstream dims(word);
    std::string d;
    while (std::getline(dims, d, 'x')) shape.push_back(std::stoll(d));
    shapes.push_back(shape);
  }
  return shapes;
}

// Runs `source` on deterministic inputs; outputs as float64 vectors (one per returned tensor).
inline std::vector<std::vector<double>> run_source(const std::string& source, const std::vector<tensor::Shape>& shapes,
                                                   int seed = 1) {
  nki::lib::testing::Harness h;
  auto mod = h.load_text("kernel.py", source);
  std::vector<tensor::Array> inputs;
  for (size_t i = 0; i < shapes.size(); ++i)
    inputs.push_back(nki::lib::testing::test_input(shapes[i], seed + static_cast<int>(i)));
  return nki::lib::testing::flattened(h.run_module(*mod, inputs).outputs);
}

using nki::lib::testing::rel_error;

}  // namespace builtin_test
