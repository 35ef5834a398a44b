// Reads of a list of None that Python reads as None lift nowhere: the lift refuses exactly where
// the kernel fails at trace time, and keeps lifting the reads Python runs.
// - Inside the loops binding the items (src/loopnest/lift_none_reads.cpp): an item a later
//   iteration binds first is None in the earlier ones; the form would read a block nothing wrote.
//   Refused at the read (Unsupported). tests/kernels/none_running_blocks.py reads items bound by
//   earlier iterations, in the same iteration, and (under a condition) on the last row only.
// - After a partial fill that unrolls (list_item_assign): a never-bound item is None, which the
//   form printed as `nl.add(x=..., y=None)`. Refused at the operand as Python's TypeError
//   (lift_call.cpp). tests/kernels/none_partial_fill.py reads only the items it bound.
// Each refusal is checked against the interpreter: the kernel changed so fails there too.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "nki/diagnostics.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
};

// 3 row tiles of 4 blocks of 128 columns.
const Case kRunning{"/tests/kernels/none_running_blocks.py", arrays({{3, 128, 512}})};
// 4 row tiles, 3 bound.
const Case kPartial{"/tests/kernels/none_partial_fill.py", arrays({{4, 128, 128}})};
// 2 row tiles, 2 chunks of 256 columns (4 blocks of 128), 128 output columns.
const Case kRows{"/tests/kernels/none_rows_projection.py", arrays({{2, 128, 128}, {2, 128, 256}, {4, 128, 128}})};

// The kernel's text with `from` (which must occur once) replaced by `to`.
std::string changed(const Case& c, const std::string& from, const std::string& to) {
  std::string text = read(source_dir() + c.file);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Where `construct` first occurs in the text after `after`: 1-based line and column.
std::pair<uint32_t, uint32_t> position(const std::string& text, const std::string& after,
                                       const std::string& construct) {
  const auto at = text.find(construct, text.find(after));
  const auto line_start = text.rfind('\n', at) + 1;
  return {static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1),
          static_cast<uint32_t>(at - line_start + 1)};
}

// The interpreter fails on the text (Python's trace reads None as a tile: a TypeError), and the lift
// refuses it with `kind` at `construct` (its first occurrence from `after` on).
void expect_refused_where_python_fails(const Case& c, const std::string& text, const std::string& after,
                                       const std::string& construct, nki::ErrorKind kind) {
  const std::string path = source_dir() + c.file;
  try {
    loopnest_test::run(path, text, c.args);
    ADD_FAILURE() << "the interpreter ran it:\n" << text;
  } catch (const nki::NkiError& e) {
    EXPECT_EQ(e.diag.kind, nki::ErrorKind::Type) << nki::render(e.diag);
  }
  try {
    loopnest::lift_source(path, text, c.args);
    ADD_FAILURE() << "lifted:\n" << text;
  } catch (const loopnest::LiftError& e) {
    const auto [line, col] = position(text, after, construct);
    EXPECT_EQ(e.diag.kind, kind) << e.render();
    EXPECT_EQ(e.diag.loc.line, line) << e.render();
    EXPECT_EQ(e.diag.loc.col, col) << e.render();
    EXPECT_EQ(e.diag.loc.end_col, col + construct.size()) << e.render();
  }
}

TEST(NoneListReads, AnItemALaterIterationBindsFirstIsRefusedAtTheReadInsideTheFillingLoops) {
  using nki::ErrorKind;
  // The last row's last block, read in every row iteration: None before the last.
  expect_refused_where_python_fails(
      kRunning, changed(kRunning, "nl.add(total, buf[0])", "nl.add(total, buf[rows * per_row - 1])"), "nl.add(total,",
      "buf[rows * per_row - 1]", ErrorKind::Unsupported);
  // The same item under a condition that holds in the first row only (as written: in the last).
  expect_refused_where_python_fails(kRunning, changed(kRunning, "if r == rows - 1:", "if r == 0:"), "if r == 0:",
                                    "buf[rows * per_row - 1]", ErrorKind::Unsupported);
  // Inside the block loop, right after its binding: the row's last block, bound by its last iteration.
  const std::string bind = "            buf[r * per_row + b] = nl.exp(x_tile[:, b * P:(b + 1) * P])\n";
  const std::string last_of_row = "            nl.store(out[r], value=nl.copy(buf[r * per_row + per_row - 1]))\n";
  expect_refused_where_python_fails(kRunning, changed(kRunning, bind, bind + last_of_row), bind,
                                    "buf[r * per_row + per_row - 1]", ErrorKind::Unsupported);
  // A list of lists: the row's last block read in the chunk loop that binds it (by the last chunk).
  const std::string row_bind = "                h_t[r][b] = nl.copy(nl.transpose(h[:, s * P:(s + 1) * P]))\n";
  expect_refused_where_python_fails(
      kRows, changed(kRows, row_bind, row_bind + "                early = nl.copy(h_t[r][blocks - 1])\n"),
      row_bind, "h_t[r][blocks - 1]", ErrorKind::Unsupported);
}

// Items bound by earlier iterations (the row's blocks after the block loop, the first block in every
// row), in the same iteration (the last block on the last row), and the first block of the row read
// inside the block loop after its first iteration bound it: one loop nest, the buffer read in place.
TEST(NoneListReads, ItemsBoundInEarlierIterationsOrTheSameOneKeepLiftingAndTheirResult) {
  const std::string path = source_dir() + kRunning.file;
  const std::string text = read(path);
  std::string form = loopnest::dump(loopnest::lift_source(path, text, kRunning.args));
  EXPECT_NE(form.find("tensor buf: sbuf float32[12 | 128, 128] buffer\n"), std::string::npos) << form;
  EXPECT_NE(form.find("  %1 = nl.add(x=total, y=buf[0, a0[128], a1[128]]) @dve\n"), std::string::npos) << form;
  EXPECT_NE(form.find("  if r == 2:\n    %2 = nl.copy(src=buf[11, a0[128], a1[128]]) @dve\n"), std::string::npos)
      << form;
  EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, text, kRunning.args), kRunning.args), text);
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, text, kRunning.args), 0u);

  const std::string bind = "            buf[r * per_row + b] = nl.exp(x_tile[:, b * P:(b + 1) * P])\n";
  const std::string first_of_row =
      changed(kRunning, bind, bind + "            nl.store(out[r], value=nl.copy(buf[r * per_row]))\n");
  form = loopnest::dump(loopnest::lift_source(path, first_of_row, kRunning.args));
  EXPECT_NE(form.find("  for b in affine_range(4):\n"), std::string::npos) << form;
  EXPECT_NE(form.find("nl.copy(src=buf[4*r, a0[128], a1[128]])"), std::string::npos) << form;
  const std::string printed = loopnest::emit_checked(loopnest::lift_source(path, first_of_row, kRunning.args),
                                                     kRunning.args, {.regenerate = true});
  EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, printed, kRunning.args),
                                     loopnest_test::run(path, first_of_row, kRunning.args)),
            1e-5)
      << printed;
}

TEST(NoneListReads, ANeverBoundItemReadAsATileAfterAPartialFillIsTheKernelsTypeError) {
  using nki::ErrorKind;
  const std::string add = "nl.add(buf[r], buf[0])";
  expect_refused_where_python_fails(kPartial, changed(kPartial, add, "nl.add(buf[r], buf[rows - 1])"), "nl.add(buf[r],",
                                    "buf[rows - 1]", ErrorKind::Type);
  expect_refused_where_python_fails(kPartial, changed(kPartial, add, "buf[r] + buf[rows - 1]"), "buf[r] +",
                                    "buf[rows - 1]", ErrorKind::Type);
  expect_refused_where_python_fails(kPartial, changed(kPartial, add, "buf[rows - 1]"), "value=", "buf[rows - 1]",
                                    ErrorKind::Type);
  expect_refused_where_python_fails(kPartial, changed(kPartial, add, "nl.exp(buf[rows - 1])"), "nl.exp(buf[rows",
                                    "buf[rows - 1]", ErrorKind::Type);
}

TEST(NoneListReads, APartialFillReadOnlyWhereBoundKeepsLiftingAndItsResult) {
  const std::string path = source_dir() + kPartial.file;
  const std::string text = read(path);
  std::string form = loopnest::dump(loopnest::lift_source(path, text, kPartial.args));
  EXPECT_NE(form.find("  %6 = nl.add(x=buf[2], y=buf[0]) @dve\n"), std::string::npos) << form;
  EXPECT_EQ(form.find("None"), std::string::npos) << form;
  EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, text, kPartial.args), kPartial.args), text);
  loopnest_test::expect_every_site_keeps_result(path, text, kPartial.args);
}

}  // namespace
