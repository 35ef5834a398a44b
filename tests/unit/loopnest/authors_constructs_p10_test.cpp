// Constructs of other authors' kernels that the lifter refused until session 10 (the p10_ kernels
// of tests/kernels/corpus/, docs/language.md "Kernels by idiom, session 10"): a closure's default
// read from the kernel's own keyword-only parameter, host values taken for their Python truth,
// nl.where of a tile condition between two scalars, and math.factorial of trace-time constants.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead = "import math\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

TEST(LoopNestLift, AClosureDefaultIsReadWhereTheDefRuns) {
  // `alpha=slope` names the kernel's keyword-only parameter: Python evaluates the default once,
  // in the kernel's scope, when the def runs -- rebinding `slope` afterwards does not change it.
  std::string text = std::string(kHead) +
                     "def kernel(x, *, slope=0.25):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    def leaky(t, *, alpha=slope):\n"
                     "        return nl.maximum(t, nl.multiply(t, alpha))\n"
                     "    slope = 0.5\n"
                     "    nl.store(out, value=leaky(nl.load(x)))\n"
                     "    return out\n";
  auto args = arrays({{128, 64}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("0.25"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("0.5)"), std::string::npos) << dump;
}

TEST(LoopNestLift, HostValuesAreConditionsByTheirPythonTruth) {
  // divmod's remainder as an `if` of a conditional expression, an empty tuple under `not`, and
  // `or` giving its deciding operand (not a bool): 300 rows = two full tiles and a tail of 44.
  std::string text = std::string(kHead) +
                     "def kernel(x, extra=()):\n"
                     "    S, D = x.shape\n"
                     "    n_full, tail = divmod(S, 128)\n"
                     "    width = 0 or D\n"
                     "    out = nl.ndarray((S, D), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    spans = [(i * 128, 128) for i in range(n_full)] + ([(n_full * 128, tail)] if tail else [])\n"
                     "    if not extra:\n"
                     "        for start, size in spans:\n"
                     "            t = nl.load(x[nl.ds(start, size), 0:width])\n"
                     "            nl.store(out[nl.ds(start, size), :], value=nl.exp(t))\n"
                     "    return out\n";
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{300, 64}})));
  EXPECT_NE(dump.find("x[256 + a0[44], a1[64]]"), std::string::npos) << dump;
  EXPECT_NE(dump.find("a1[64]"), std::string::npos) << dump;
  // A loop-dependent integer has no truth the lift can know: refused, naming the condition.
  std::string dynamic = std::string(kHead) +
                        "def kernel(x):\n"
                        "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                        "    for i in nl.affine_range(2):\n"
                        "        t = nl.load(x) if i else nl.exp(nl.load(x))\n"
                        "        nl.store(out, value=t)\n"
                        "    return out\n";
  try {
    loopnest::lift_source("k.py", dynamic, arrays({{128, 64}}));
    FAIL() << "a loop-dependent condition lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("the condition 'i'"), std::string::npos) << e.render();
  }
}

TEST(LoopNestLift, WhereOfATileConditionBetweenTwoScalars) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    s = nl.where(t > 0.0, 1.0, -1.0)\n"
                     "    nl.store(out, value=nl.multiply(t, s))\n"
                     "    return out\n";
  auto args = arrays({{128, 64}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("where"), std::string::npos) << dump;
  // The result has the condition's shape: the multiply that reads it lifts and prints back.
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("nl.where("), std::string::npos) << printed;
}

TEST(LoopNestLift, FactorialsOfTraceTimeConstants) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    coeffs = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(3)]\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    nl.store(out, value=nl.multiply(t, coeffs[2]))\n"
                     "    return out\n";
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{128, 64}})));
  EXPECT_NE(dump.find("0.00833333"), std::string::npos) << dump;  // 1 / 5!
  std::string too_big = std::string(kHead) +
                        "def kernel(x):\n"
                        "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                        "    nl.store(out, value=nl.multiply(nl.load(x), 1.0 / math.factorial(21)))\n"
                        "    return out\n";
  EXPECT_THROW(loopnest::lift_source("k.py", too_big, arrays({{128, 64}})), loopnest::LiftError);
}

}  // namespace
