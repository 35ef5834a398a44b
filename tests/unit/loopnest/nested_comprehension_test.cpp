// A nested comprehension of tiles lifts as the loop nest it means (src/loopnest/lift_nested_rolled.cpp)
// and prints back as written or as a nested comprehension (emit_nested_rolled.cpp):
// tests/kernels/nested_rows_projection_api.py (and its legacy twin) builds `x_t = [[nl.transpose(
// nl.load(x[r, :, k, :])) for k in range(k_tiles)] for r in range(rows)]`, hands a row `x_t[r]` to a
// list helper (len() of it, indexed by k) inside `for r in nl.affine_range(rows)`, and projects with
// nl.matmul without transpose_x. Before, the nested comprehension ran copy by copy, the row loop lifted
// as copies (a Python list of lists indexed by a loop variable) and each move was offered once per row
// copy, behind helpers=open (held-out author42 swiglu: hoist_transpose on 4 copies, one per round).
#include <gtest/gtest.h>

#include <fstream>
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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 128, 2, 128}, {2, 128, 256}, {2, 128, 512}});
const std::vector<std::string> kKernels = {"/tests/kernels/nested_rows_projection_api.py",
                                           "/tests/kernels/nested_rows_projection.py"};

std::vector<const loopnest::Site*> sites_of(const std::vector<loopnest::Site>& sites, const std::string& transform) {
  std::vector<const loopnest::Site*> out;
  for (const auto& s : sites)
    if (s.transform == transform) out.push_back(&s);
  return out;
}

TEST(NestedComprehension, ANestedComprehensionOfTilesIsOneLoopNestAndItsRowLoopOneLoop) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string form = loopnest::dump(loopnest::lift_source(path, read(path), kArgs));
    // One list tensor with two block dims, filled by the nest.
    EXPECT_NE(form.find("tensor x_t_item: psum float32[2, 2 | 128, 128] value list 'x_t' over r of list 'x_t_row' over k"),
              std::string::npos) << file << "\n" << form;
    EXPECT_NE(form.find("for r in range(2):\n  for k in range(2):\n    %1 = nl.load(src=x[r, a0[128], k, a1[128]])"),
              std::string::npos) << form;
    // The row loop stays a loop; the helper's loop reads the row's tiles by its index.
    EXPECT_NE(form.find("for r in affine_range(2):"), std::string::npos) << form;
    EXPECT_NE(form.find("nl.matmul(x=x_t_item[r, k, a0[128], a1[128]]"), std::string::npos) << form;
    EXPECT_EQ(form.find("inline for"), std::string::npos) << form;
  }
}

// The implicit transpose of `nl.matmul(hidden[...], ...)` is redone per output block: one
// hoist_transpose site for every row (no helpers=open, no per-copy site), the comprehension
// copied as written. Golden tests/golden/loopnest/rewrite/nested_rows_projection_api.hoist_transpose.py.
TEST(NestedComprehension, HoistTransposeIsOneSiteForEveryRowAndKeepsTheResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    auto hoists = sites_of(sites, "hoist_transpose");
    ASSERT_EQ(hoists.size(), 1u) << file;
    EXPECT_EQ(hoists[0]->params.count("helpers"), 0u);
    std::string after = loopnest::apply_site(path, text, kArgs, *hoists[0]);
    EXPECT_NE(after.find("    x_t = [[nl.transpose(nl.load(x[r, :, k, :])) for k in range(k_tiles)] for r in range(rows)]\n"),
              std::string::npos) << after;
    EXPECT_NE(after.find("transpose_x=True)"), std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
    if (file.find("_api") == std::string::npos) continue;
    std::string golden = source_dir() + "/tests/golden/loopnest/rewrite/nested_rows_projection_api.hoist_transpose.py";
    if (std::getenv("ACCELOPT_UPDATE_GOLDEN")) std::ofstream(golden) << after;
    EXPECT_EQ(after, read(golden)) << "(ACCELOPT_UPDATE_GOLDEN=1 regenerates it)";
  }
}

TEST(NestedComprehension, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  std::string path = source_dir() + kKernels[0];
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u);
}

// Printed from the form (the path a changed statement takes): a nested comprehension of the
// element's call over the form's ranges, which lifts again and computes the same.
TEST(NestedComprehension, PrintedFromTheFormItIsANestedComprehensionAgain) {
  std::string path = source_dir() + kKernels[0];
  std::string text = read(path);
  std::string printed = loopnest::emit_checked(loopnest::lift_source(path, text, kArgs), kArgs, {.regenerate = true});
  EXPECT_NE(printed.find("x_t = [[nl.transpose(nl.load(x[r, :, k, :])) for k in range(2)] for r in range(2)]"),
            std::string::npos) << printed;
  EXPECT_LT(rel_error(run(path, printed, kArgs), run(path, text, kArgs)), 1e-5) << printed;
}

}  // namespace
