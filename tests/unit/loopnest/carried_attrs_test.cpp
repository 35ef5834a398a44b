// Instance attributes through a loop of the form (lift_attrs.cpp): the filled-list probe lifts the
// body once on a copy of the lifter whose instances share their attribute maps with the real lift,
// so an attribute the probe set leaked into it (`st.scale` read as the value the body sets at its
// end: the first iteration's 1.0 lifted as 2.0). The maps are put back after the probe, and a body
// that sets an attribute after reading it (later iterations read another value) is refused by name,
// with or without a filled list; set before it is read, the attribute lifts as its one value.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
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

TEST(LoopNestAttrs, AnAttributeSetAfterItIsReadInALoopIsRefusedByName) {
  for (bool filled : {false, true}) {
    try {
      auto dump = loopnest::dump(loopnest::lift_source("k.py", kernel(filled, false), arrays({{512, 128}})));
      ADD_FAILURE() << "lifted (filled list: " << filled << ")\n" << dump;
    } catch (const loopnest::LiftError& e) {
      EXPECT_NE(e.render().find("sets the attribute 'st.scale' after reading it"), std::string::npos) << e.render();
      EXPECT_NE(e.render().find("k.py:16:5"), std::string::npos) << e.render();
    }
  }
}

TEST(LoopNestAttrs, AnAttributeSetBeforeItIsReadLiftsAsItsValue) {
  for (bool filled : {false, true}) {
    auto dump = loopnest::dump(loopnest::lift_source("k.py", kernel(filled, true), arrays({{512, 128}})));
    EXPECT_NE(dump.find("nl.multiply(x=t, y=2.0)"), std::string::npos) << dump;
  }
}

}  // namespace
