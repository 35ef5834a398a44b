// A Python list preallocated with None and filled by item assignment of whole tiles in loops
// (`h_t = [[None] * B for _ in range(T)]; ... h_t[r][b] = tile`, `buf = [None] * N; ...
// buf[r * B + b] = tile`) lifts as one on-chip buffer with a block dim per list level
// (src/loopnest/lift_none_list.cpp), each binding a write of its block, each later read a read of
// it. Before, the nested form stopped the lift ("cannot lift 'h_t[r]': a Python list indexed by a
// loop-dependent value") and the flat one made the filling loops lift as unrolled copies.
// tests/kernels/none_rows_projection.py: legacy API, plain-range loops, transposed blocks read back
// by nl.matmul(..., transpose_x=True); tests/kernels/none_flat_blocks.py: affine loops, a flat list
// indexed `r * per_row + b`.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
};

// 2 row tiles, 2 chunks of 256 columns (4 blocks of 128), 128 output columns.
const Case kRows{"/tests/kernels/none_rows_projection.py", arrays({{2, 128, 128}, {2, 128, 256}, {4, 128, 128}})};
// 2 row tiles of 4 blocks of 128 columns.
const Case kFlat{"/tests/kernels/none_flat_blocks.py", arrays({{2, 128, 512}, {128, 128}})};

std::string form_of(const Case& c, const std::string& text) {
  std::string path = source_dir() + c.file;
  return loopnest::dump(loopnest::lift_source(path, text, c.args));
}

TEST(NoneList, AListOfListsOfNoneIsOneBufferWithTwoBlockDimsWrittenPerIterationAndReadLater) {
  std::string form = form_of(kRows, read(source_dir() + kRows.file));
  EXPECT_NE(form.find("tensor h_t: sbuf float32[2, 4 | 128, 128] buffer list 'h_t' of list 'h_t_row'\n"),
            std::string::npos) << form;
  // The filling loops stay loops; the block is the chunk's sub-block of the row tile.
  EXPECT_NE(form.find("  for r in range(2):\n"), std::string::npos) << form;
  EXPECT_NE(form.find("    for s in range(2):\n      %2 = nl.transpose(x=h#2[a0[128], 128*s + a1[128]]) @pe\n"
                      "      h_t[r, 2*c + s, a0[128], a1[128]] = nl.copy(src=%2) @dve\n"),
            std::string::npos) << form;
  EXPECT_NE(form.find("  for b in range(4):\n"), std::string::npos) << form;
  EXPECT_NE(form.find("acc += nl.matmul(x=h_t[r, b, a0[128], a1[128]], y=%3, transpose_x=True) @pe"), std::string::npos)
      << form;
}

// The rows written as a comprehension of None (`[[None for _ in range(B)] for _ in range(T)]`): the same
// buffer, and the statement printed as written.
TEST(NoneList, ANestedComprehensionOfNoneIsTheSameBuffer) {
  std::string path = source_dir() + kRows.file;
  std::string text = read(path);
  const std::string was = "h_t = [[None] * blocks for _ in range(row_tiles)]";
  ASSERT_NE(text.find(was), std::string::npos);
  text.replace(text.find(was), was.size(), "h_t = [[None for _ in range(blocks)] for _ in range(row_tiles)]");
  std::string form = form_of(kRows, text);
  EXPECT_NE(form.find("tensor h_t: sbuf float32[2, 4 | 128, 128] buffer list 'h_t' of list 'h_t_row'\n"),
            std::string::npos) << form;
  EXPECT_EQ(form.find("inline <comprehension>"), std::string::npos) << form;
  EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, text, kRows.args), kRows.args), text);
}

TEST(NoneList, AFlatListOfNoneIsOneBufferWithOneBlockDimIndexedAffinely) {
  std::string form = form_of(kFlat, read(source_dir() + kFlat.file));
  EXPECT_NE(form.find("tensor buf: sbuf float32[8 | 128, 128] buffer\n"), std::string::npos) << form;
  EXPECT_NE(form.find("for r in affine_range(2):\n  x_tile = nl.load(src=x[r, a0[128], a1[512]]) @dma\n"
                      "  for b in affine_range(4):\n"
                      "    buf[b + 4*r, a0[128], a1[128]] = nl.multiply("),
            std::string::npos) << form;
  EXPECT_NE(form.find("total = nl.add(x=total, y=buf[b + 4*r, a0[128], a1[128]]) @dve"), std::string::npos) << form;
}

TEST(NoneList, PrintsBackAsWritten) {
  for (const Case* c : {&kRows, &kFlat}) {
    std::string path = source_dir() + c->file;
    std::string text = read(path);
    EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, text, c->args), c->args), text) << c->file;
  }
}

// Printed from the form (the path a changed statement takes): the bindings as item assignments of
// the list, the reads through it, and the kernel computes what it computes as written.
TEST(NoneList, PrintsFromTheFormThroughTheListComputingTheSame) {
  struct Expect {
    const Case* c;
    std::string written, read_back;
  };
  for (const auto& [c, written, read_back] :
       {Expect{&kRows, "h_t[r][2*c + s] = ", "h_t[r][b]"}, Expect{&kFlat, "buf[b + 4*r] = ", "buf[b + 4*r]"}}) {
    std::string path = source_dir() + c->file;
    std::string text = read(path);
    std::string printed =
        loopnest::emit_checked(loopnest::lift_source(path, text, c->args), c->args, {.regenerate = true});
    EXPECT_NE(printed.find(written), std::string::npos) << printed;
    EXPECT_NE(printed.find(read_back), std::string::npos) << printed;
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, printed, c->args), loopnest_test::run(path, text, c->args)),
              1e-5)
        << printed;
  }
}

// Python reads None where an item is read before the binding that first binds it: still an error
// at the lift, at the read.
TEST(NoneList, AnItemReadBeforeAnyBindingIsRefused) {
  std::string path = source_dir() + kRows.file;
  std::string text = read(path);
  const std::string bind = "                h_t[r][b] = nl.copy(";
  ASSERT_NE(text.find(bind), std::string::npos);
  const std::string early = "                early = nl.copy(h_t[r][b])\n";
  text.insert(text.find(bind), early);
  const auto at = static_cast<long>(text.find(early));
  const auto read_line = static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n') + 1);
  try {
    loopnest::lift_source(path, text, kRows.args);
    FAIL() << "a read of an item still None lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_EQ(e.diag.loc.line, read_line) << e.render();
  }
}

TEST(NoneList, EverySiteOfTheKernelsPrintsAndKeepsItsResult) {
  for (const Case* c : {&kRows, &kFlat}) {
    std::string path = source_dir() + c->file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), c->args), 0u) << c->file;
  }
}

}  // namespace
