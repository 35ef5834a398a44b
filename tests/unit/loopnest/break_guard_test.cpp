// `if c: ...; break` at the top of a tile loop's body (lift_break.cpp): the loop ends after the
// first iteration where c holds, its stop an expression of the outer loops when c reads them; a
// condition whose first iteration is no such expression is refused with the condition named.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

std::string tri(const std::string& cond) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    out = nl.ndarray((512, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for i in nl.affine_range(4):\n"
         "        for j in range(4):\n"
         "            t = nl.load(x[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128])\n"
         "            nl.store(out[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128], value=t)\n"
         "            if " + cond + ":\n"
         "                break\n"
         "    return out\n";
}

TEST(LoopNestBreak, TheLoopEndsAfterTheFirstIterationWhereTheConditionHolds) {
  // j == i first holds at j = i: the inner loop runs i + 1 iterations.
  EXPECT_NE(loopnest::dump(loopnest::lift_source("k.py", tri("j == i"), arrays({{512, 512}}))).find("range(min(4, i + 1))"),
            std::string::npos);
  // j >= 2 first holds at j = 2 whatever i is.
  EXPECT_NE(loopnest::dump(loopnest::lift_source("k.py", tri("j >= 2"), arrays({{512, 512}}))).find("range(3)"),
            std::string::npos);
  // j + i >= 3 (an anti-diagonal): j = 3 - i, at least one iteration.
  auto anti = loopnest::dump(loopnest::lift_source("k.py", tri("j + i >= 3"), arrays({{512, 512}})));
  EXPECT_NE(anti.find("if i + j >= 3"), std::string::npos) << anti;
}

TEST(LoopNestBreak, PrintedFromTheFormTheBreakIsTheContinueTheFormReads) {
  auto form = loopnest::lift_source("k.py", tri("j == i"), arrays({{512, 512}}));
  EXPECT_NE(loopnest::emit(form).find("                break\n"), std::string::npos);  // as written
  loopnest::EmitOptions all;
  all.regenerate = true;
  std::string printed = loopnest::emit(form, all);
  EXPECT_NE(printed.find("for j in range(min(4, i + 1)):"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("break"), std::string::npos) << printed;
  EXPECT_NE(printed.find("continue"), std::string::npos) << printed;
  // and it lifts to the same nest
  EXPECT_EQ(loopnest::dump(loopnest::lift_source("k.py", printed, arrays({{512, 512}}))), loopnest::dump(form));
}

TEST(LoopNestBreak, AConditionWithoutARangeOfTheLoopIsRefusedByName) {
  // (j + i) % 2 == 1 first holds at j = 0 or 1 by the parity of i: no expression the solver finds.
  try {
    loopnest::lift_source("k.py", tri("(j + i) % 2 == 1"), arrays({{512, 512}}));
    FAIL() << "lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("a break under the condition"), std::string::npos) << e.render();
    EXPECT_NE(e.render().find("k.py:12:"), std::string::npos) << e.render();
  }
  // A break after a continue guard is refused with the construct named.
  std::string nested = std::string(kHead) +
                       "def kernel(x):\n"
                       "    out = nl.ndarray((512, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                       "    for r in range(4):\n"
                       "        if r == 0:\n"
                       "            continue\n"
                       "        if r == 2:\n"
                       "            break\n"
                       "        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.load(x[r * 128:(r + 1) * 128, :]))\n"
                       "    return out\n";
  try {
    loopnest::lift_source("k.py", nested, arrays({{512, 128}}));
    FAIL() << "lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("a break that is not in an if at the top of a tile loop's body"), std::string::npos)
        << e.render();
  }
}

}  // namespace
