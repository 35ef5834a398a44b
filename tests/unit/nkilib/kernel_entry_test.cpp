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

// Other authors name their kernel as they like: the file's one @nki.jit function runs.
TEST(KernelEntryByDecorator, RunsTheOnlyJitFunction) {
  testing::Harness h;
  auto mod = h.load_text("silu.py", R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def helper(t):
  return nl.add(t, 1.0)


@nki.jit
def add_one_fwd(x):
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=helper(nl.load(x)))
  return out


alias = add_one_fwd
)");
  tensor::Array x = testing::test_input({128, 4}, 1);
  auto r = run_kernel(h.in, *mod, {make_array(x)}, KernelRunOptions{});
  ASSERT_EQ(r.outputs.size(), 1u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return x.get({i, j}) + 1.0; });
}

TEST(KernelEntryByDecorator, SeveralJitFunctionsAreNamedInTheError) {
  testing::Harness h;
  auto mod = h.load_text("two.py", R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def first(x):
  return x


@nki.jit(mode="simulation")
def second(x):
  return x


third = second  # an alias names the same kernel: it is not a third one
)");
  std::string problem;
  EXPECT_TRUE(find_kernel_entry(*mod, "", &problem).is_none());
  EXPECT_NE(problem.find("several @nki.jit functions ('first', 'second')"), std::string::npos) << problem;
  EXPECT_FALSE(find_kernel_entry(*mod, "second", &problem).is_none());
}

TEST(KernelEntryByDecorator, KernelByNameWinsOverOtherJitFunctions) {
  testing::Harness h;
  auto mod = h.load_text("k.py", R"(import neuronxcc.nki as nki


@nki.jit
def other(x):
  return x


def kernel(x):
  return x
)");
  Value fn = find_kernel_entry(*mod, "");
  ASSERT_FALSE(fn.is_none());
  EXPECT_EQ(fn.object().get(), mod->attrs.at("kernel").object().get());
}

}  // namespace
}  // namespace nki::lib
