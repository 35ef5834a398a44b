// Running a named function of a kernel file (KernelRunOptions::entry), also one in baremetal form
// (the output passed in as an argument).
#include <gtest/gtest.h>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

const char* kTwoKernels = R"(import neuronxcc.nki.language as nl


def double_into(x, out):
  t = nl.load(x)
  nl.store(out, value=nl.multiply(t, 2.0))


def plus_one(x):
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=nl.add(nl.load(x), 1.0))
  return out
)";

struct KernelEntry : ::testing::Test {
  testing::Harness h;
  std::shared_ptr<ModuleObj> mod = h.load_text("two.py", kTwoKernels);
  tensor::Array x = testing::test_input({128, 4}, 1);
};

TEST_F(KernelEntry, RunsTheNamedFunction) {
  KernelRunOptions opt;
  opt.entry = "plus_one";
  auto r = run_kernel(h.in, *mod, {make_array(x)}, opt);
  ASSERT_EQ(r.outputs.size(), 1u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return x.get({i, j}) + 1.0; });
}

TEST_F(KernelEntry, RunsANamedBaremetalFunction) {
  KernelRunOptions opt;
  opt.entry = "double_into";
  auto r = run_kernel(h.in, *mod, {make_array(x), make_array(tensor::Array::zeros({128, 4}, tensor::DType::Float32))},
                      opt);
  ASSERT_EQ(r.outputs.size(), 1u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return 2.0 * x.get({i, j}); });
}

TEST_F(KernelEntry, NamesAMissingFunction) {
  KernelRunOptions opt;
  opt.entry = "nope";
  try {
    run_kernel(h.in, *mod, {make_array(x)}, opt);
    FAIL() << "expected an error";
  } catch (const NkiError& e) {
    EXPECT_NE(std::string(e.what()).find("no function named 'nope'"), std::string::npos) << e.what();
  }
}

TEST_F(KernelEntry, WithoutAnEntryTheFileNeedsKernel) {
  EXPECT_THROW(run_kernel(h.in, *mod, {make_array(x)}, KernelRunOptions{}), NkiError);
}

}  // namespace
}  // namespace nki::lib
