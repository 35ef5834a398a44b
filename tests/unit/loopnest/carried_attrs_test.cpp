// Instance attributes through a loop of the form (lift_attrs.cpp): the filled-list probe lifts the
// body once on a copy of the lifter whose instances share their attribute maps with the real lift,
// so an attribute the probe set leaked into it (`st.scale` read as the value the body sets at its
// end: the first iteration's 1.0 lifted as 2.0). The maps are put back after the probe, and a body
// that sets an attribute after reading it (later iterations read another value) lifts as the copies
// the trace runs, or is refused by name when they do not lift; set before it is read, the attribute
// lifts as its one value in one loop.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

std::string kernel(bool filled, bool set_first) {
  std::string set = "        st.scale = 2.0\n";
  std::string text =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
      "class Scan:\n"
      "    def __init__(self, width):\n"
      "        self.width = width\n"
      "        self.scale = 1.0\n\n\n"
      "@nki.jit\n"
      "def kernel(x):\n"
      "    out = nl.ndarray((512, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    st = Scan(64)\n"
      "    carry = [0.0] * 2\n"
      "    for r in nl.sequential_range(4):\n";
  if (set_first) text += set;
  text += "        for h in range(2):\n"
          "            t = nl.load(x[r * 128:(r + 1) * 128, h * st.width:(h + 1) * st.width])\n";
  text += filled ? "            carry[h] = nl.add(nl.multiply(t, st.scale), carry[h])\n"
                   "            nl.store(out[r * 128:(r + 1) * 128, h * st.width:(h + 1) * st.width], value=carry[h])\n"
                 : "            nl.store(out[r * 128:(r + 1) * 128, h * st.width:(h + 1) * st.width], value=nl.multiply(t, st.scale))\n";
  if (!set_first) text += set;
  text += "    return out\n";
  return text;
}

TEST(LoopNestAttrs, AnAttributeSetAfterItIsReadLiftsAsTheCopiesOfTheBody) {
  // Python reads 1.0 in the first iteration and 2.0 after: the loop lifts as the copies the trace
  // runs (an inline node printed as the loop written), each with its own value.
  auto dump = loopnest::dump(loopnest::lift_source("k.py", kernel(false, false), arrays({{512, 128}})));
  EXPECT_NE(dump.find("inline for:"), std::string::npos) << dump;
  EXPECT_NE(dump.find("nl.multiply(x=t, y=1.0)"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("nl.multiply(x=t, y=1.0)"), dump.rfind("nl.multiply(x=t, y=1.0)")) << dump;
  EXPECT_NE(dump.find("y=2.0"), std::string::npos) << dump;
  EXPECT_NE(loopnest::emit(loopnest::lift_source("k.py", kernel(false, false), arrays({{512, 128}}))).find(
                "    for r in nl.sequential_range(4):\n"),
            std::string::npos);
}

TEST(LoopNestAttrs, AnAttributeSetAfterItIsReadWithAFilledListIsRefusedByName) {
  // The copies do not lift either (a list filled with tiles in a loop nested in them): before, the
  // filled-list probe's 2.0 leaked into the lift of every iteration.
  try {
    auto dump = loopnest::dump(loopnest::lift_source("k.py", kernel(true, false), arrays({{512, 128}})));
    ADD_FAILURE() << "lifted\n" << dump;
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("sets the attribute 'st.scale' after reading it"), std::string::npos) << e.render();
    EXPECT_NE(e.render().find("k.py:16:5"), std::string::npos) << e.render();
  }
}

TEST(LoopNestAttrs, AnAttributeSetBeforeItIsReadLiftsAsItsValue) {
  for (bool filled : {false, true}) {
    auto dump = loopnest::dump(loopnest::lift_source("k.py", kernel(filled, true), arrays({{512, 128}})));
    EXPECT_NE(dump.find("nl.multiply(x=t, y=2.0)"), std::string::npos) << dump;
  }
}

}  // namespace
