// The lifter and the loop-nest moves read the function a run calls (kernel_definition: the run's
// own choice, nki::lib::choose_kernel): the one --entry names, else the file's default; a file with
// several kernels and none named 'kernel' is the run's typed problem, never a guess.
#include <gtest/gtest.h>

#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace loopnest {
namespace {

// Two versions of an add (v1 with nl.add, v2 with the Vector Engine's tensor_tensor) and a
// benchmark wrapper launching v2.
const char* kVersions = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def add_v1(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[r * 128:(r + 1) * 128, :])
        y = nl.load(b[r * 128:(r + 1) * 128, :])
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(x, y))
    return out


@nki.jit
def add_v2(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[r * 128:(r + 1) * 128, :])
        y = nl.load(b[r * 128:(r + 1) * 128, :])
        nl.store(out[r * 128:(r + 1) * 128, :], value=nisa.tensor_tensor(x, y, op=nl.subtract))
    return out


@nki.benchmark(warmup=2, iters=5)
def bench_v2(a, b):
    return add_v2(a, b)
)";

std::vector<ArgSpec> two_arrays() {
  ArgSpec a;
  a.shape = {256, 512};
  return {a, a};
}

TEST(KernelEntryLift, SeveralKernelsWithoutAnEntryIsTheRunsProblem) {
  try {
    lift_source("versions.py", kVersions, two_arrays());
    FAIL() << "lifted a file whose run has no function to call";
  } catch (const LiftError& e) {
    EXPECT_EQ(e.diag.kind, nki::ErrorKind::Name);
    EXPECT_NE(e.diag.message.find("several kernels ('add_v1', 'add_v2')"), std::string::npos) << e.diag.message;
  }
}

TEST(KernelEntryLift, TheEntryIsTheFunctionLifted) {
  for (const char* entry : {"add_v1", "add_v2"}) {
    Kernel k = lift_source("versions.py", kVersions, two_arrays(), entry);
    EXPECT_EQ(k.name, entry);
    EXPECT_EQ(k.entry, entry);
  }
  // An alias `kernel = add_v2` is the run's default: v2, not the first decorated def.
  Kernel aliased = lift_source("versions.py", std::string(kVersions) + "\nkernel = add_v2\n", two_arrays());
  EXPECT_EQ(aliased.name, "add_v2");
  try {
    lift_source("versions.py", kVersions, two_arrays(), "add_v9");
    FAIL() << "lifted a function the file does not define";
  } catch (const LiftError& e) {
    EXPECT_NE(e.diag.message.find("no function named 'add_v9'"), std::string::npos) << e.diag.message;
  }
}

// Every site found on the entry's lift, applied for the same entry, edits that function only: the
// text before `def add_v2` (v1 and the imports) and the wrapper after it are unchanged.
TEST(KernelEntryLift, AMoveEditsTheEntryOnly) {
  const std::string text = kVersions;
  const size_t v2 = text.find("@nki.jit\ndef add_v2"), wrapper = text.find("@nki.benchmark");
  Kernel k = lift_source("versions.py", text, two_arrays(), "add_v2");
  std::vector<Site> sites = find_sites(k);
  ASSERT_FALSE(sites.empty());
  int applied = 0;
  for (const Site& s : sites) {
    std::string out;
    try {
      out = apply_site("versions.py", text, two_arrays(), s, "add_v2");
    } catch (const TransformError&) {
      continue;
    }
    ++applied;
    EXPECT_EQ(out.substr(0, v2), text.substr(0, v2)) << s.key();
    size_t out_wrapper = out.find("@nki.benchmark");
    ASSERT_NE(out_wrapper, std::string::npos) << s.key();
    EXPECT_EQ(out.substr(out_wrapper), text.substr(wrapper)) << s.key();
    EXPECT_NE(out, text) << s.key();
  }
  EXPECT_GT(applied, 0);
}

}  // namespace
}  // namespace loopnest
