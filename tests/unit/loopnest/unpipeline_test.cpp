// Hand-written software pipelines seen through (src/loopnest/unpipeline.cpp, session 30): a prefetch
// of tile j + 1 (a slot of a rotating buffer, or a named tile swapped by rebinding) goes back into
// its own iteration, so the moves see each iteration's tile. The same loop written as four
// pipelines offers the same sites; a prefetch that is no pipeline stays. The printed kernels are
// GoldenRewrites' (prefetch_rows_*.jam_rows); that every site keeps the result,
// EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include "corpus.h"
#include "text_edit.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::replace;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{512, 256}, {128, 256}});

std::string kernel_text(const std::string& name) { return read(source_dir() + "/tests/kernels/" + name); }

// How many pipelines `text` has undone, and the printed result.
int undone(const std::string& text, std::string* printed = nullptr) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, kArgs);
  int count = loopnest::unpipeline_loops(k);
  // The kernel's code, without the header comment that describes the pipeline.
  if (printed && count) {
    *printed = loopnest::emit_checked(k, kArgs);
    *printed = printed->substr(printed->find("def kernel"));
  }
  return count;
}

// The sites offered through an undone pipeline, by move, anchor and parameters (not line).
std::set<std::string> undone_sites(const std::string& name) {
  std::set<std::string> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(name, kernel_text(name), kArgs))) {
    if (!s.params.count("pipeline")) continue;
    std::string key = s.transform + " " + s.anchor;
    for (const auto& [k, v] : s.params)
      if (k != "line") key += " " + k + "=" + v;
    out.insert(key);
  }
  return out;
}

TEST(Unpipeline, EverySpellingOfTheLoopOffersTheSameSites) {
  const auto guarded = undone_sites("prefetch_rows_guarded.py");
  EXPECT_TRUE(guarded.count("jam_rows 4/load#0 factor=2 pipeline=undone")) << ::testing::PrintToString(guarded);
  for (const char* other : {"prefetch_rows_epilogue.py", "prefetch_rows_named.py", "prefetch_rows_api.py"})
    EXPECT_EQ(undone_sites(other), guarded) << other;
}

TEST(Unpipeline, PrintsTheLoopItSchedules) {
  std::string printed;
  ASSERT_EQ(undone(kernel_text("prefetch_rows_guarded.py"), &printed), 1);
  // One tile per iteration, declared in the loop with the author's dims; no prologue, no guard.
  EXPECT_NE(printed.find("for i in nl.affine_range(n):"), std::string::npos) << printed;
  EXPECT_NE(printed.find("x_buf = nl.ndarray((nl.par_dim(128), cols)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("% 2"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("if i + 1 < n"), std::string::npos) << printed;
  // The epilogue folds back into one more iteration, the author's bound without its `- 1`.
  ASSERT_EQ(undone(kernel_text("prefetch_rows_epilogue.py"), &printed), 1);
  EXPECT_NE(printed.find("for t in nl.affine_range(n):"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("last"), std::string::npos) << printed;
  // The named tiles: the next tile loaded into `x_cur` itself.
  ASSERT_EQ(undone(kernel_text("prefetch_rows_named.py"), &printed), 1);
  EXPECT_EQ(printed.find("x_next"), std::string::npos) << printed;
}

TEST(Unpipeline, LeavesWhatIsNoPipeline) {
  // The buffer read after the loop: its slot holds the last tile there.
  std::string text = kernel_text("prefetch_rows_guarded.py");
  replace(text, "    return out", "    nl.store(out[0:128, :], value=x_buf[1])\n    return out");
  EXPECT_EQ(undone(text), 0);
  // A guard skipping two iterations: the last tile would be loaded twice... or never.
  text = kernel_text("prefetch_rows_guarded.py");
  replace(text, "if i + 1 < n:", "if i + 2 < n:");
  EXPECT_EQ(undone(text), 0);
  // The prefetch reads what the loop writes: loaded one iteration early, it would read old values.
  text = kernel_text("prefetch_rows_guarded.py");
  replace(text, "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)",
          "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n        nl.store(x[i * 128:(i + 1) * 128, :], value=y)");
  EXPECT_EQ(undone(text), 0);
  // An epilogue that computes something else than the loop's body.
  text = kernel_text("prefetch_rows_epilogue.py");
  replace(text, "    y = nl.add(nl.multiply(e, 0.5), b)\n    nl.store", "    y = nl.add(nl.multiply(e, 0.25), b)\n    nl.store");
  EXPECT_EQ(undone(text), 0);
  // The named tile read after its rebinding (it is the next tile there).
  text = kernel_text("prefetch_rows_named.py");
  replace(text, "            x_cur = x_next", "            x_cur = x_next\n        nl.store(out[0:128, :], value=x_cur)");
  EXPECT_EQ(undone(text), 0);
}

}  // namespace
