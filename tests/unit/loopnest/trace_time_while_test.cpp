// A trace-time Python `while` rebinding a tile name (a GPU-style tree reduction: `m =
// nl.maximum(m[:, 0:w], m[:, w:2 * w])` while the width halves) lifts as one Inline node of its
// unrolled copies. Opened (open_helpers), the copies are the kernel's own statements, the last
// under the kernel's name `m` (earlier ones renamed apart): before session 27 the last was renamed
// (`m_4`), the reduce after the loop, printed as written, read the first `m`, and the kernel had no
// site with its inline nodes opened
// (the note blamed helpers it does not have). What stays closed is now typed (ClosedInlines).
#include <gtest/gtest.h>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

TEST(TraceTimeWhile, OpensUnderTheKernelsNameAndOffersSitesAroundTheTree) {
  std::string path = source_dir() + "/tests/kernels/max_tree_rows.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  auto closed = loopnest::inlines_stay_closed(form);
  EXPECT_FALSE(closed) << closed->why;
  int opened = 0;
  auto want = loopnest_test::run(path, text, args);
  for (const auto& s : loopnest::find_sites(form)) {
    if (!s.params.count("helpers")) continue;
    std::string after = loopnest::apply_site(path, text, args, s);
    // The reduce after the tree, printed as written, reads the last copy by the kernel's name.
    EXPECT_NE(after.find("top = nl.max(m, axis=1, keepdims=True)"), std::string::npos) << s.key() << "\n" << after;
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, after, args), want), 1e-6) << s.key() << "\n" << after;
    ++opened;
  }
  EXPECT_GE(opened, 2);  // engine moves of the tree's maxima at least
}

TEST(TraceTimeWhile, TheNoteNamesTheConstructThatStaysClosed) {
  loopnest::ClosedInlines c;
  c.kinds = {loopnest::InlineKind::TraceTimeWhile};
  c.line = 42;
  EXPECT_EQ(loopnest::describe(c), "the while loops run at trace time (the first at line 42)");
  c.kinds.insert(loopnest::InlineKind::HelperCall);
  EXPECT_EQ(loopnest::describe(c), "the helpers called in its loops and the while loops run at trace time (the first at line 42)");
}

}  // namespace
