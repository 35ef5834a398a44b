// Test support: an interpreter with the builtin modules, kernel loading from tests/kernels/ or
// inline text, deterministic inputs, and element-wise comparison.
#pragma once

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/kernel_runner.h"
#include "nki/lib/modules.h"
#include "support/test_paths.h"

namespace nki::lib {
ObjectPtr make_numpy_module(Interpreter& in);
}

namespace nki::lib::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string kernel_path(const std::string& name) {
  return std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/" + name;
}

struct Harness {
  Interpreter in;
  explicit Harness(Limits limits = {}) : in(limits) {
    install_builtin_modules(in);
    in.register_module("numpy", make_numpy_module);
  }
  std::shared_ptr<ModuleObj> load_text(const std::string& path, const std::string& text) {
    auto src = std::make_shared<SourceFile>();
    src->path = path;
    src->text = text;
    return in.load_module(src);
  }
  std::shared_ptr<ModuleObj> load(const std::string& name) { return load_text(name, read_file(kernel_path(name))); }
  KernelRunResult run(const std::string& name, const std::vector<tensor::Array>& inputs, bool numerics = true,
                      trn::TraceSink* sink = nullptr) {
    auto mod = load(name);
    return run_module(*mod, inputs, numerics, sink);
  }
  KernelRunResult run_module(ModuleObj& mod, const std::vector<tensor::Array>& inputs, bool numerics = true,
                             trn::TraceSink* sink = nullptr) {
    std::vector<Value> args;
    for (auto& a : inputs) args.push_back(make_array(a));
    KernelRunOptions opt;
    opt.numerics = numerics;
    opt.sink = sink;
    return run_kernel(in, mod, args, opt);
  }
};

// Deterministic values in [-1, 1] that differ per element and per seed.
inline tensor::Array test_input(const tensor::Shape& shape, int seed) {
  std::vector<double> v(size_t(tensor::num_elements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * double(i) + 1.7 * seed) * std::cos(0.011 * double(i) + seed);
  return tensor::Array::from_values(shape, tensor::DType::Float32, v);
}

inline double at(const tensor::Array& a, int64_t i, int64_t j) { return a.get({i, j}); }

// Expects |got - want| <= tol * (1 + |want|) everywhere; reports the first mismatch.
template <class F>
void expect_all(const tensor::Array& got, F want, double tol = 1e-5) {
  ASSERT_EQ(got.ndim(), 2);
  for (int64_t i = 0; i < got.shape()[0]; ++i)
    for (int64_t j = 0; j < got.shape()[1]; ++j) {
      double w = want(i, j), g = got.get({i, j});
      if (std::abs(g - w) > tol * (1 + std::abs(w))) {
        ADD_FAILURE() << "element (" << i << ", " << j << "): got " << g << ", want " << w;
        return;
      }
    }
}

}  // namespace nki::lib::testing
