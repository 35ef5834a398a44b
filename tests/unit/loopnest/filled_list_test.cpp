// A Python list of numbers a loop fills with tiles by item assignment (`state = [0.0] * n_rows`,
// `state[r] = nl.copy(h[:, -1:])`, src/loopnest/lift_filled_list.cpp): a scan's carry per row tile
// between chunks. It lifts as one on-chip buffer read as the number before the item's first binding;
// the chunk loop carries it (no move treats the chunks as independent); printed from the form, a
// binding rebinds the item; a read after the loop that fills it is refused, named. That each site
// keeps the result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's, that the form
// prints back to itself LoopNestCorpus.EveryOperationRegeneratedLiftsToTheSameForm's.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::string kPath = source_dir() + "/tests/kernels/corpus/con_scan_carry_list.py";
const auto kArgs = arrays({{256, 768}, {256, 768}});

TEST(FilledList, AListOfNumbersBoundToTilesLiftsAsACarriedBuffer) {
  loopnest::Kernel form = loopnest::lift_source(kPath, read(kPath), kArgs);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("tensor state: sbuf float32[2 | 128, 1] buffer carried by c"), std::string::npos) << dump;
  EXPECT_NE(dump.find("initial=(0.0 if (1 if c == 0 else 0) else state[r, a0[128], a1[1]])"), std::string::npos) << dump;
  EXPECT_NE(dump.find("state[r, a0[128], a1[1]] = nl.copy("), std::string::npos) << dump;
  // The chunks depend on each other through the list: no site runs them as independent iterations.
  for (const auto& s : loopnest::find_sites(form))
    EXPECT_FALSE(s.transform == "affine_loop" && s.summary.find("`for c`") != std::string::npos) << s.key();
}

TEST(FilledList, PrintedFromTheFormABindingRebindsTheItem) {
  loopnest::Kernel form = loopnest::lift_source(kPath, read(kPath), kArgs);
  std::string printed = loopnest::emit_checked(form, kArgs, {.regenerate = true});
  EXPECT_NE(printed.find("state[r] = nl.copy("), std::string::npos) << printed;
  EXPECT_EQ(printed.find("state[r][...]"), std::string::npos) << printed;
  EXPECT_NE(printed.find("initial=(0.0 if c == 0 else state[r])"), std::string::npos) << printed;
}

TEST(FilledList, AnItemReadAfterTheLoopThatFillsItIsRefusedNamed) {
  std::string text = read(kPath);
  const std::string ret = "    return out\n";
  ASSERT_NE(text.find(ret), std::string::npos);
  text.replace(text.find(ret), ret.size(), "    nl.store(out[0:128, 0:1], value=nl.copy(state[0]))\n" + ret);
  try {
    loopnest::lift_source("k.py", text, kArgs);
    ADD_FAILURE() << "lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(std::string(e.what()).find("read after that loop"), std::string::npos) << e.what();
  }
}

}  // namespace
