// What a kernel returns: its output HBM tensor, a tuple of them, or a list of them (the newer front
// end takes tuples and lists alike as kernel values, nki-language.md 12.1); anything else is an
// error pointing at the value of the kernel's return.
#include <gtest/gtest.h>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

const char* kKernels = R"(import neuronxcc.nki.language as nl


def as_list(x):
  a = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  b = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.load(x)
  nl.store(a, value=nl.add(t, 1.0))
  nl.store(b, value=nl.multiply(t, 2.0))
  return [a, b]


def a_number(x):
  a = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  nl.store(a, value=nl.load(x))
  return x.shape[0]
)";

struct KernelReturn : ::testing::Test {
  testing::Harness h;
  std::shared_ptr<ModuleObj> mod = h.load_text("ret.py", kKernels);
  tensor::Array x = testing::test_input({128, 4}, 1);
};

TEST_F(KernelReturn, AListOfOutputsIsTakenAsATuple) {
  KernelRunOptions opt;
  opt.entry = "as_list";
  auto r = run_kernel(h.in, *mod, {make_array(x)}, opt);
  EXPECT_TRUE(r.returned_tuple);
  ASSERT_EQ(r.outputs.size(), 2u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return x.get({i, j}) + 1.0; });
  testing::expect_all(r.outputs[1], [&](int64_t i, int64_t j) { return 2.0 * x.get({i, j}); });
}

TEST_F(KernelReturn, AnythingElseIsAnErrorAtTheReturn) {
  KernelRunOptions opt;
  opt.entry = "a_number";
  try {
    run_kernel(h.in, *mod, {make_array(x)}, opt);
    FAIL() << "expected an error";
  } catch (const NkiError& e) {
    EXPECT_NE(std::string(e.what()).find("must return its output HBM tensors"), std::string::npos) << e.what();
    EXPECT_EQ(e.diag.loc.line, 16u);  // `return x.shape[0]`
    EXPECT_EQ(e.diag.loc.col, 10u);
  }
}

}  // namespace
}  // namespace nki::lib
