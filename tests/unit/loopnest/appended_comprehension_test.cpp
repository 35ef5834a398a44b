// A list comprehension appended once per iteration of a loop (`x_t.append([nl.load_transpose2d(
// x[g, r, :, k, :]) for k in range(k_tiles)])`) lifts as `row = [...]; x_t.append(row)` would: the
// comprehension as its loop inside the appending one, one list tensor with two block dims
// (src/loopnest/lift_appended_rows.cpp), printed back as written or as the append of a
// comprehension of the changed element (emit_rolled.cpp). Before, the lift stopped at
// Lifter::append ("an append of something other than a whole tile (or a list of tiles)") and the
// kernel got no loop-nest site (held-out author50 swiglu).
// tests/kernels/appended_rows_swiglu.py: legacy API, a plain-range appending loop, the rows handed
// to a helper contracting them by k; tests/kernels/appended_rows_transpose_api.py: newer API, the
// appending loop and the comprehension over nl.affine_range, an nl.copy(nl.transpose(...)) element,
// `rows_t[r][k]` read by the kernel itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
};

// 2 row tiles of 2 blocks of 128 contraction rows each (and 2 groups for the SwiGLU one).
const Case kSwiglu{"/tests/kernels/appended_rows_swiglu.py",
                   arrays({{2, 2, 128, 2, 128}, {2, 128, 256}, {2, 128, 256}})};
const Case kTranspose{"/tests/kernels/appended_rows_transpose_api.py", arrays({{2, 128, 2, 128}, {2, 128, 256}})};

std::string form_of(const Case& c) {
  std::string path = source_dir() + c.file;
  return loopnest::dump(loopnest::lift_source(path, read(path), c.args));
}

TEST(AppendedComprehension, ALegacyAppendOfAComprehensionIsOneListTensorFilledByALoopNest) {
  std::string form = form_of(kSwiglu);
  // One tensor per group: row tiles by blocks, the appending loop the outer list, the comprehension the row.
  EXPECT_NE(form.find("tensor x_t_item: sbuf float32[2, 2 | 128, 128] value per g list 'x_t' over r of list 'x_t_row' "
                      "over k"),
            std::string::npos) << form;
  EXPECT_NE(form.find("  for r in range(2):\n    for k in range(2):\n"
                      "      x_t_item = nl.load_transpose2d(src=x[g, r, a0[128], k, a1[128]]) @dma\n"),
            std::string::npos) << form;
  // The second row loop stays one loop; the helper reads block (r, k) by its own loop variable.
  EXPECT_NE(form.find("nl.matmul(x=x_t_item[r, k, a0[128], a1[128]], y=gate_w_item[k, a0[128], a1[256]]"),
            std::string::npos) << form;
  EXPECT_EQ(form.find("inline <comprehension>"), std::string::npos) << form;
}

TEST(AppendedComprehension, AnAffineAppendOfACopiedTransposeIsOneListTensorReadByBlock) {
  std::string form = form_of(kTranspose);
  EXPECT_NE(form.find("list 'rows_t' over r of list 'rows_t_row' over k"), std::string::npos) << form;
  EXPECT_NE(form.find("[2, 2 | 128, 128]"), std::string::npos) << form;
  EXPECT_NE(form.find("for r in affine_range(2):\n  for k in affine_range(2):\n"), std::string::npos) << form;
  EXPECT_NE(form.find("nl.matmul(x=rows_t_item[r, k, a0[128], a1[128]]"), std::string::npos) << form;
  EXPECT_EQ(form.find("inline <comprehension>"), std::string::npos) << form;
}

// Unchanged, the kernel prints back as written; printed from the form (the path a changed statement
// takes), the append of a comprehension of the element's call over the form's range, which lifts
// again and computes what the kernel computes.
TEST(AppendedComprehension, PrintsBackAsWrittenAndFromTheFormComputingTheSame) {
  struct Expect {
    const Case* c;
    std::string regenerated;
  };
  for (const auto& [c, regenerated] :
       {Expect{&kSwiglu, "x_t.append([nl.load_transpose2d(x[g, r, :, k, :]) for k in range(2)])"},
        Expect{&kTranspose, "rows_t.append([nl.copy(nl.transpose(nl.load(x[r, :, k, :]))) for k in nl.affine_range(2)])"}}) {
    std::string path = source_dir() + c->file;
    std::string text = read(path);
    EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, text, c->args), c->args), text) << c->file;
    std::string printed =
        loopnest::emit_checked(loopnest::lift_source(path, text, c->args), c->args, {.regenerate = true});
    EXPECT_NE(printed.find(regenerated), std::string::npos) << printed;
    EXPECT_LT(rel_error(run(path, printed, c->args), run(path, text, c->args)), 1e-5) << printed;
  }
}

// The list's block dim is the appending loop's iteration: a loop not counting from 0 has no block
// for `x_t[0]` (its first append is item 0, made at r == 1). The old refusal stays.
TEST(AppendedComprehension, AnAppendingLoopNotFromZeroIsStillRefused) {
  std::string path = source_dir() + kTranspose.file;
  std::string text = read(path);
  const std::string from = "    for r in nl.affine_range(rows):\n        rows_t.append(";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "    for r in nl.affine_range(1, rows):\n        rows_t.append(");
  const auto at = static_cast<long>(text.find("        rows_t.append("));
  const auto append_line = static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n') + 1);
  try {
    loopnest::lift_source(path, text, kTranspose.args);
    FAIL() << "an append from r == 1 lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_EQ(e.diag.loc.line, append_line) << e.render();  // refused at the append itself
  }
}

TEST(AppendedComprehension, EverySiteOfTheKernelsPrintsAndKeepsItsResult) {
  for (const Case* c : {&kSwiglu, &kTranspose}) {
    std::string path = source_dir() + c->file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), c->args), 0u) << c->file;
  }
}

}  // namespace
