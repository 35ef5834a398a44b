// The kernel corpus (tests/kernels/corpus/): kernels written in the styles of other authors
// (the NKI tutorials in both API dialects, machine-generated NKIBench kernels, samples), each
// with a numpy reference `<name>.ref.py` in the NKIBench reference format. Every kernel runs
// unchanged with numerics on two seeds and must match its reference to the relative L2
// tolerance the reference names (TOLERANCE, default 2e-5, as the benchmark checker); a
// trace-only run must execute the same instructions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kernel_harness.h"
#include "tensor/ops.h"
#include "support/test_paths.h"

namespace nki::lib {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() { return fs::path(ACCELOPT_SOURCE_DIR) / "tests/kernels/corpus"; }

std::vector<std::string> corpus_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(corpus_dir())) {
    std::string file = entry.path().filename().string();
    const std::string suffix = ".ref.py";
    if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(file.substr(0, file.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Value attr_or_none(const ModuleObj& m, const char* name) {
  auto it = m.attrs.find(name);
  return it == m.attrs.end() ? Value() : it->second;
}

std::vector<Value> items_of(Interpreter& in, const Value& v) {
  std::vector<Value> out;
  if (v.as<TupleObj>() || v.as<ListObj>()) {
    auto it = in.iterate(v);
    for (Value x; it->next(x);) out.push_back(x);
  } else {
    out.push_back(v);
  }
  return out;
}

double rel_l2(const tensor::Array& got, const tensor::Array& want) {
  tensor::Array g = tensor::astype(got, tensor::DType::Float64).contiguous();
  tensor::Array w = tensor::astype(want, tensor::DType::Float64).contiguous();
  double num = 0, den = 0;
  for (int64_t i = 0; i < w.size(); ++i) {
    double d = g.f64()[i] - w.f64()[i];
    num += d * d;
    den += w.f64()[i] * w.f64()[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

struct CorpusRun {
  std::vector<tensor::Array> outputs;  // after transform_nki_outputs
  std::vector<tensor::Array> expected;
  uint64_t instructions = 0;
  double tolerance = 2e-5;
};

// One seed of one corpus kernel, as the benchmark harness runs a task (nkibench.md).
CorpusRun run_case(const std::string& name, int seed, bool numerics) {
  testing::Harness h;
  auto ref = h.load_text((corpus_dir() / (name + ".ref.py")).string(),
                         testing::read_file((corpus_dir() / (name + ".ref.py")).string()));
  Interpreter& in = h.in;
  Value np = in.import_module("numpy");
  in.call(in.get_attr(in.get_attr(np, "random"), "seed"), CallArgs{{Value::from_int(seed)}, {}});
  Value inputs = in.call(in.get_attr(Value(ref), "get_inputs"), {});
  CallArgs fwd;
  for (auto& v : items_of(in, inputs)) fwd.args.push_back(v);
  Value expected = in.call(in.get_attr(Value(ref), "forward"), fwd);
  Value kernel_inputs = inputs;
  if (Value t = attr_or_none(*ref, "transform_to_nki_inputs"); !t.is_none())
    kernel_inputs = in.call(t, CallArgs{{inputs}, {}});
  auto kernel = h.load_text((corpus_dir() / (name + ".py")).string(),
                            testing::read_file((corpus_dir() / (name + ".py")).string()));
  KernelRunOptions opt;
  opt.numerics = numerics;
  KernelRunResult r = run_kernel(in, *kernel, items_of(in, kernel_inputs), opt);
  CorpusRun out;
  out.instructions = r.instructions;
  if (Value t = attr_or_none(*ref, "TOLERANCE"); !t.is_none()) out.tolerance = t.as_float();
  for (auto& v : items_of(in, expected)) out.expected.push_back(to_array(in, v));
  if (!numerics) return out;
  std::vector<Value> raw;
  for (auto& a : r.outputs) raw.push_back(make_array(a));
  Value k_res = r.returned_tuple || raw.size() != 1 ? make_tuple(raw) : raw[0];
  if (Value t = attr_or_none(*ref, "transform_nki_outputs"); !t.is_none()) {
    for (auto& v : items_of(in, in.call(t, CallArgs{{k_res, expected}, {}}))) out.outputs.push_back(to_array(in, v));
  } else {
    out.outputs = r.outputs;
  }
  return out;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, RunsUnchangedAndMatchesItsReference) {
  const std::string& name = GetParam();
  uint64_t instructions = 0;
  for (int seed : {0, 42}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CorpusRun r;
    try {
      r = run_case(name, seed, true);
    } catch (const NkiError& e) {
      FAIL() << render(e.diag);
    }
    ASSERT_EQ(r.outputs.size(), r.expected.size());
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      ASSERT_EQ(r.outputs[i].shape(), r.expected[i].shape()) << "output " << i;
      double err = rel_l2(r.outputs[i], r.expected[i]);
      EXPECT_LT(err, r.tolerance) << "output " << i << " relative L2 error";
    }
    instructions = r.instructions;
  }
  try {
    CorpusRun t = run_case(name, 0, false);
    EXPECT_EQ(t.instructions, instructions) << "trace-only run executes other instructions";
  } catch (const NkiError& e) {
    FAIL() << "trace-only run: " << render(e.diag);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Corpus, ::testing::ValuesIn(corpus_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace nki::lib
