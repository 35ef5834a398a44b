// choose_kernel: the function of a kernel file a run calls, found from its text, as the def the
// lifter and the rewrites read (one rule: find_kernel_entry on the loaded module).
#include <gtest/gtest.h>

#include "nki/lib/kernel_choice.h"
#include "nki/parser.h"

namespace nki::lib {
namespace {

// Three versions and a benchmark wrapper launching the third, as a tutorial publishes them.
const char* kVersions = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_v1(a, b):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=nl.add(nl.load(a), nl.load(b)))
  return out


@nki.jit
def add_v2(a, b):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=nl.subtract(nl.load(a), nl.load(b)))
  return out


@nki.benchmark(warmup=2, iters=5)
def bench_v2(a, b):
  return add_v2(a, b)
)";

TEST(KernelChoice, SeveralKernelsAreATypedProblemLeavingTheWrapperOut) {
  KernelChoice c = choose_kernel("versions.py", kVersions);
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(c.load_error);
  EXPECT_EQ(c.problem.kind, EntryProblem::Kind::SeveralKernels);
  EXPECT_EQ(c.problem.kernels, (std::vector<std::string>{"add_v1", "add_v2"}));
  EXPECT_NE(c.message("--entry NAME").find("choose the one to run with --entry NAME (e.g. --entry add_v1)"),
            std::string::npos)
      << c.message("--entry NAME");
  EXPECT_NE(c.message().find("`kernel = add_v1`"), std::string::npos) << c.message();
}

TEST(KernelChoice, TheEntryNamesTheDefItsLineAndName) {
  KernelChoice c = choose_kernel("versions.py", kVersions, "add_v2");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c.function, "add_v2");
  EXPECT_EQ(c.line, 12);  // where the def of add_v2 starts: its decorator
  // A wrapper named by the entry is its own def (running it launches add_v2).
  KernelChoice w = choose_kernel("versions.py", kVersions, "bench_v2");
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(w.function, "bench_v2");
  KernelChoice missing = choose_kernel("versions.py", kVersions, "add_v9");
  EXPECT_EQ(missing.problem.kind, EntryProblem::Kind::NoSuchFunction);
}

TEST(KernelChoice, AnAliasNamedKernelChoosesTheDefItHolds) {
  std::string text = std::string(kVersions) + "\n\nkernel = add_v2\n";
  KernelChoice c = choose_kernel("versions.py", text);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c.function, "add_v2");
  // The def found in another parse of the same text is add_v2's, not the first decorated def.
  auto module = parse_module(std::make_shared<SourceFile>(SourceFile{"versions.py", text}));
  const FunctionCode* def = chosen_definition(*module, c);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->name, "add_v2");
}

TEST(KernelChoice, ARedefinedNameIsTheDefTheRunCalls) {
  // Python binds the last def: the lines tell the two defs of `kernel` apart.
  const char* text = R"(import neuronxcc.nki.language as nl


def kernel(a):
  return a


def kernel(a):
  out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
  nl.store(out, value=nl.load(a))
  return out
)";
  KernelChoice c = choose_kernel("redefined.py", text);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c.line, 8);
  auto module = parse_module(std::make_shared<SourceFile>(SourceFile{"redefined.py", text}));
  const FunctionCode* def = chosen_definition(*module, c);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->body.size(), 3u);
}

TEST(KernelChoice, AFileThatDoesNotLoadCarriesItsError) {
  KernelChoice c = choose_kernel("broken.py", "import neuronxcc.nki.language as nl\nX = undefined_name\n");
  EXPECT_FALSE(c.ok());
  ASSERT_TRUE(c.load_error);
  EXPECT_EQ(c.load_error->kind, ErrorKind::Name);
  EXPECT_EQ(c.load_error->loc.line, 2u);
}

TEST(KernelChoice, ACallableThatNoDefMadeIsNotADefinition) {
  const char* text = R"(class Launcher:
  def __call__(self, a):
    return a


kernel = Launcher()
)";
  KernelChoice c = choose_kernel("callable.py", text);
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(c.not_a_definition);
  EXPECT_EQ(c.problem.kind, EntryProblem::Kind::None);
}

}  // namespace
}  // namespace nki::lib
