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
  EntryProblem problem;
  EXPECT_TRUE(find_kernel_entry(*mod, "", &problem).is_none());
  EXPECT_EQ(problem.kind, EntryProblem::Kind::SeveralKernels);
  EXPECT_EQ(problem.kernels, (std::vector<std::string>{"first", "second"}));
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

// Host wrappers (host_wrapper_target): a function made only by harness decorators whose body
// launches another kernel of the file on its own arguments is not a second kernel.
const char* kWrapped = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki import benchmark


@nki.jit
def add_one(x):
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=nl.add(nl.load(x), 1.0))
  return out


@benchmark(warmup=5, iters=20, save_neff_name="file.neff")
def bench_add_one(x):
  """Measures add_one on the device."""
  return add_one(x)


@nki.profile(working_directory="/tmp")
def profile_add_one(x):
  add_one[1](x)
)";

TEST(KernelEntryWrappers, AFileWithOneKernelAndItsWrappersRunsTheKernel) {
  testing::Harness h;
  auto mod = h.load_text("w.py", kWrapped);
  EXPECT_EQ(host_wrapper_target(mod->attrs.at("bench_add_one")), mod->attrs.at("add_one").object().get());
  EXPECT_EQ(host_wrapper_target(mod->attrs.at("profile_add_one")), mod->attrs.at("add_one").object().get());
  Value fn = find_kernel_entry(*mod, "");
  ASSERT_FALSE(fn.is_none());
  EXPECT_EQ(fn.object().get(), mod->attrs.at("add_one").object().get());
  // A wrapper named as the entry runs, launching the kernel.
  tensor::Array x = testing::test_input({128, 4}, 1);
  KernelRunOptions opt;
  opt.entry = "bench_add_one";
  auto r = run_kernel(h.in, *mod, {make_array(x)}, opt);
  ASSERT_EQ(r.outputs.size(), 1u);
  testing::expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return x.get({i, j}) + 1.0; });
}

// What is not a wrapper: @nki.jit on the caller (a kernel calling a kernel), a body that computes
// before the call, an argument that is not the wrapper's own, a harness decorator on a real
// kernel body, a call of a plain function.
TEST(KernelEntryWrappers, OnlyAPureLaunchIsAWrapper) {
  const std::vector<std::pair<const char*, const char*>> not_wrappers = {
      {"@nki.jit", "  return add_one(x)"},
      {"@nki.benchmark", "  y = x\n  return add_one(y)"},
      {"@nki.benchmark", "  return add_one(nl.load(x))"},
      {"@nki.baremetal", "  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n  return out"},
      {"@nki.benchmark", "  return helper(x)"}};
  for (const auto& [decorator, body] : not_wrappers) {
    std::string text = std::string("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
                                   "def helper(x):\n  return x\n\n\n@nki.jit\ndef add_one(x):\n  return x\n\n\n") +
                       decorator + "\ndef other(x):\n" + body + "\n";
    testing::Harness h;
    auto mod = h.load_text("n.py", text);
    EXPECT_EQ(host_wrapper_target(mod->attrs.at("other")), nullptr) << text;
    EntryProblem problem;
    EXPECT_TRUE(find_kernel_entry(*mod, "", &problem).is_none()) << text;
    EXPECT_EQ(problem.kernels, (std::vector<std::string>{"add_one", "other"})) << text;
  }
}

// The error says how to choose: the command-line option when the caller has one, else the
// file's own 'kernel'; a wrong --entry lists the kernels.
TEST(KernelEntryWrappers, TheProblemSaysHowToChoose) {
  testing::Harness h;
  auto mod = h.load_text("v.py", std::string(kWrapped) + "\n\n@nki.jit\ndef add_two(x):\n  return add_one(add_one(x))\n");
  EntryProblem problem;
  EXPECT_TRUE(find_kernel_entry(*mod, "", &problem).is_none());
  EXPECT_EQ(problem.kernels, (std::vector<std::string>{"add_one", "add_two"}));
  EXPECT_EQ(problem.message("--entry NAME"),
            "kernel file defines several kernels ('add_one', 'add_two') and none named 'kernel': choose the one to "
            "run with --entry NAME (e.g. --entry add_one)");
  EXPECT_EQ(problem.message(), "kernel file defines several kernels ('add_one', 'add_two') and none named 'kernel': "
                               "name the one to run 'kernel' (or add `kernel = add_one`)");
  EXPECT_TRUE(find_kernel_entry(*mod, "add_three", &problem).is_none());
  EXPECT_EQ(problem.kind, EntryProblem::Kind::NoSuchFunction);
  EXPECT_EQ(problem.message("--entry NAME"),
            "the kernel file defines no function named 'add_three' (its kernels: 'add_one', 'add_two')");
}

}  // namespace
}  // namespace nki::lib
