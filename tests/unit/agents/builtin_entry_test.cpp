// The AST rewrites edit the function a run calls (find_kernel: the run's own choice), in a file
// with several kernels too: the one --entry names, or the one `kernel = NAME` names; with none
// named, the file has no function to run and no site.
#include <gtest/gtest.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/transform.h"
#include "nki/ast_printer.h"

namespace agents::builtin {
namespace {

// The same foldable chain of scalar steps in two kernels; kernel_b starts on line 18.
const char* kTwo = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel_a(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    half = nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=0.5)
    res = nl.multiply(half, 0.25)
    nl.store(out, value=res)
    return out


@nki.jit
def kernel_b(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    half = nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=0.5)
    res = nl.multiply(half, 0.25)
    nl.store(out, value=res)
    return out
)";

constexpr int kKernelBFirstLine = 18, kKernelBLastLine = 24;

// The body of the def a run of `text` calls for `entry`, printed.
std::string body_of(const std::string& text, const std::string& entry) {
  auto module = parse_source(text);
  return nki::print_block(find_kernel(*module, entry).body, 1);
}

TEST(BuiltinEntry, SitesAreTheEntrysAndApplyingEditsItOnly) {
  const std::string text = kTwo;
  auto sites = find_sites(text, {}, "kernel_b");
  ASSERT_FALSE(sites.empty());
  for (const auto& s : sites) {
    EXPECT_GE(s.line(), kKernelBFirstLine) << s.key();
    EXPECT_LE(s.line(), kKernelBLastLine) << s.key();
    std::string out = apply_site(text, s, {}, "kernel_b");
    EXPECT_EQ(body_of(out, "kernel_a"), body_of(text, "kernel_a")) << s.key();
    EXPECT_NE(body_of(out, "kernel_b"), body_of(text, "kernel_b")) << s.key();
  }
}

TEST(BuiltinEntry, SeveralKernelsAndNoneNamedHaveNoSite) {
  EXPECT_TRUE(find_sites(kTwo).empty());
  auto module = parse_source(kTwo);
  try {
    find_kernel(*module);
    FAIL() << "chose a kernel among several";
  } catch (const RewriteError& e) {
    EXPECT_NE(std::string(e.what()).find("several kernels ('kernel_a', 'kernel_b')"), std::string::npos) << e.what();
  }
}

TEST(BuiltinEntry, AnAliasNamedKernelIsTheDefault) {
  std::string text = std::string(kTwo) + "\n\nkernel = kernel_b\n";
  auto sites = find_sites(text);
  ASSERT_FALSE(sites.empty());
  for (const auto& s : sites) {
    EXPECT_GE(s.line(), kKernelBFirstLine) << s.key();
    EXPECT_LE(s.line(), kKernelBLastLine) << s.key();
  }
}

}  // namespace
}  // namespace agents::builtin
