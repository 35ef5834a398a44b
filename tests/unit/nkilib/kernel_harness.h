// Test support: an interpreter with the builtin modules, kernel loading from tests/kernels/ or
// inline text, deterministic inputs, and element-wise comparison.
#pragma once

#include <algorithm>
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

// A kernel's outputs as float64 vectors (one per returned tensor, row-major).
inline std::vector<std::vector<double>> flattened(const std::vector<tensor::Array>& outputs) {
  std::vector<std::vector<double>> out;
  for (const auto& a : outputs) {
    std::vector<double> v;
    int64_t n = tensor::num_elements(a.shape());
    std::vector<int64_t> index(a.shape().size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      v.push_back(a.get(index));
      for (int d = static_cast<int>(index.size()) - 1; d >= 0 && ++index[d] == a.shape()[d]; --d) index[d] = 0;
    }
    out.push_back(std::move(v));
  }
  return out;
}

// Relative L2 error of `got` against `want` over all outputs (infinity on a shape mismatch).
inline double rel_error(const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want) {
  if (got.size() != want.size()) return INFINITY;
  double num = 0, den = 0;
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].size() != want[o].size()) return INFINITY;
    for (size_t i = 0; i < got[o].size(); ++i) {
      double d = got[o][i] - want[o][i];
      num += d * d, den += want[o][i] * want[o][i];
    }
  }
  double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
  return std::isnan(err) ? INFINITY : err;  // an unwritten output is NaN (HBM starts as poison)
}

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
