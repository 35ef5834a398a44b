// nki::lib::run_kernel (kernel_runner.h): outputs, tuples, instruction counts with and without a
// sink, and what the evaluation's checker relies on (poisoned outputs, private input copies and
// their checksums, returned inputs refused, narrow formats reported).
#include <cmath>

#include <gtest/gtest.h>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

using testing::Harness;
using testing::test_input;

const char* kHead =
    "import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
    "import neuronxcc.nki.isa as nisa\nimport neuronxcc.nki.typing as nt\n\n@nki.jit\n";

std::string kernel(const std::string& body) { return std::string(kHead) + body; }

const std::string kCopy = kernel(
    "def kernel(a):\n"
    "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
    "    nl.store(out, value=nl.load(a))\n"
    "    return out\n");

TEST(KernelRunner, ReturnsTheOutputsAndCountsInstructionsWithOrWithoutASink) {
  Harness h;
  auto mod = h.load_text("copy.py", kCopy);
  tensor::Array a = test_input({128, 64}, 1);
  KernelRunResult plain = h.run_module(*mod, {a});
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_FALSE(plain.returned_tuple);
  EXPECT_DOUBLE_EQ(plain.outputs[0].get({5, 7}), a.get({5, 7}));
  trn::TraceBuffer buffer;
  KernelRunResult traced = h.run_module(*mod, {a}, true, &buffer);
  EXPECT_EQ(plain.instructions, traced.instructions);
  EXPECT_EQ(traced.instructions, 2u);  // load, store
  EXPECT_FALSE(buffer.records.empty());
}

TEST(KernelRunner, TupleOfOutputs) {
  Harness h;
  auto mod = h.load_text("two.py", kernel("def kernel(a):\n"
                                           "    x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
                                           "    y = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
                                           "    t = nl.load(a)\n    nl.store(x, value=t)\n    nl.store(y, value=t)\n"
                                           "    return x, y\n"));
  KernelRunResult r = h.run_module(*mod, {test_input({128, 8}, 2)});
  EXPECT_TRUE(r.returned_tuple);
  EXPECT_EQ(r.outputs.size(), 2u);
}

// Device memory is not zeroed: what the kernel leaves unwritten in an HBM output is NaN.
TEST(KernelRunner, UnwrittenOutputIsPoison) {
  Harness h;
  auto mod = h.load_text("half.py", kernel("def kernel(a):\n"
                                            "    out = nl.ndarray((256, 8), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                                            "    nl.store(out[0:128, :], value=nl.load(a))\n"
                                            "    return out\n"));
  KernelRunResult r = h.run_module(*mod, {test_input({128, 8}, 3)});
  EXPECT_FALSE(std::isnan(r.outputs[0].get({0, 0})));
  EXPECT_TRUE(std::isnan(r.outputs[0].get({200, 0})));
}

TEST(KernelRunner, InputsAreCopiesAndChangesToThemAreReported) {
  Harness h;
  auto mod = h.load_text("mutate.py", kernel("def kernel(a, b):\n"
                                              "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
                                              "    t = nl.load(a)\n    nl.store(out, value=t)\n    nl.store(b, value=t)\n"
                                              "    return out\n"));
  tensor::Array a = test_input({128, 8}, 4), b = test_input({128, 8}, 5);
  double before = b.get({1, 1});
  KernelRunResult r = h.run_module(*mod, {a, b});
  EXPECT_EQ(r.mutated_inputs, std::vector<size_t>{1});
  EXPECT_DOUBLE_EQ(b.get({1, 1}), before);  // the caller's array is untouched
  KernelRunResult clean = h.run_module(*h.load_text("copy.py", kCopy), {a});
  EXPECT_TRUE(clean.mutated_inputs.empty());
}

TEST(KernelRunner, ReturningAnInputIsARuleError) {
  Harness h;
  auto mod = h.load_text("pass.py", kernel("def kernel(a):\n    return a\n"));
  try {
    h.run_module(*mod, {test_input({128, 8}, 6)});
    FAIL() << "expected a Rule error";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Rule);
    EXPECT_NE(e.diag.message.find("returned its input tensor"), std::string::npos) << e.diag.message;
    EXPECT_EQ(e.diag.loc.line, 9u);  // at the return, compiler-style
  }
}

// An argument updated in place and returned (`a: nt.mutable_tensor`, which the compiler requires
// to be returned) is an output argument: its new contents come back, and it is not reported as a
// mutated input.
// An argument annotated nt.mutable_tensor that the kernel writes and returns is an output; an
// argument returned unwritten, or written without the annotation (the compiler's
// err_cannot_update_immutable_parameter), stays a Rule error.
TEST(KernelRunner, ReturningAMutableArgumentItWroteIsAnOutput) {
  Harness h;
  auto refused = [&](const std::string& name, const std::string& body) {
    auto mod = h.load_text(name, kernel(body));
    try {
      h.run_module(*mod, {test_input({128, 8}, 6), test_input({128, 8}, 7)});
      ADD_FAILURE() << name << ": returning an input must stay a Rule error";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, ErrorKind::Rule) << name;
      EXPECT_NE(e.diag.message.find("returned its input tensor"), std::string::npos) << e.diag.message;
    }
  };
  refused("unwritten.py", "def kernel(a: nt.mutable_tensor, b):\n"
                          "    nl.store(a, nl.add(nl.load(a), nl.load(b)))\n"
                          "    return a, b\n");
  refused("immutable.py", "def kernel(a, b):\n"
                          "    nl.store(a, nl.add(nl.load(a), nl.load(b)))\n"
                          "    return a\n");
  auto mod2 = h.load_text("inplace2.py", kernel("def kernel(a: nt.mutable_tensor, b):\n"
                                               "    nl.store(a, nl.add(nl.load(a), nl.load(b)))\n"
                                               "    return a\n"));
  auto a = test_input({128, 8}, 6), b = test_input({128, 8}, 7);
  auto r = h.run_module(*mod2, {a, b});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.written_arguments, std::vector<size_t>{0});
  EXPECT_TRUE(r.mutated_inputs.empty());
  EXPECT_EQ(r.outputs[0].get({5, 3}), static_cast<float>(a.get({5, 3}) + b.get({5, 3})));
}

TEST(KernelRunner, ReportsTheNarrowFloatFormatsItUsed) {
  Harness h;
  auto mod = h.load_text("bf16.py", kernel("def kernel(a):\n"
                                            "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
                                            "    t = nl.load(a, dtype=nl.bfloat16)\n"
                                            "    nl.store(out, value=nl.copy(t, dtype=a.dtype))\n"
                                            "    return out\n"));
  KernelRunResult r = h.run_module(*mod, {test_input({128, 8}, 7)});
  ASSERT_EQ(r.narrow_formats.size(), 1u);
  EXPECT_EQ(r.narrow_formats[0].dtype, tensor::DType::BFloat16);
  EXPECT_EQ(r.narrow_formats[0].api, "nl.load");
  EXPECT_EQ(r.narrow_formats[0].loc.line, 10u);
  EXPECT_TRUE(h.run_module(*h.load_text("copy.py", kCopy), {test_input({128, 8}, 7)}).narrow_formats.empty());
}

TEST(KernelRunner, MissingKernelFunctionIsANameError) {
  Harness h;
  auto mod = h.load_text("none.py", "x = 1\n");
  try {
    h.run_module(*mod, {});
    FAIL() << "expected a Name error";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Name);
  }
}

}  // namespace
}  // namespace nki::lib
