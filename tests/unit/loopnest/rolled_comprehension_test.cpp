// A comprehension of one tile per index lifts as the loop it means (src/loopnest/lift_rolled.cpp)
// and prints back as a comprehension (emit_rolled.cpp): tests/kernels/chunk_logits_softmax_api.py,
// a researcher's high-level style (a row block's logits a list of column chunks made by
// `[nl.matmul(xr, w_sb[:, p-block]) for p in range(n)]`, a softmax helper taking and returning
// lists), and the same nest in the legacy API (chunk_logits_softmax.py). Before, the comprehensions
// were frozen copies in Inline `<comprehension>` nodes and the helper holding two of them never
// opened: no move saw the matmul's transpose redone per chunk nor the softmax's subtract.
#include <gtest/gtest.h>

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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 64}, {64, 2048}});
const std::vector<std::string> kKernels = {"/tests/kernels/chunk_logits_softmax_api.py",
                                           "/tests/kernels/chunk_logits_softmax.py"};

const loopnest::Site* site_of(const std::vector<loopnest::Site>& sites, const std::string& transform) {
  for (const auto& s : sites)
    if (s.transform == transform) return &s;
  return nullptr;
}

TEST(RolledComprehension, AComprehensionOfTilesIsTheLoopItMeans) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    loopnest::Kernel k = loopnest::lift_source(path, read(path), kArgs);
    std::string form = loopnest::dump(k);
    // The logits: one loop over the chunks whose statement makes the list's item; the helper's
    // comprehensions (over the list) too; no frozen comprehension left.
    EXPECT_NE(form.find("for p in range(4):\n    logits_item = nl.matmul(x=xr, y=w_sb[a0[64], 512*p + a1[512]])"),
              std::string::npos) << file << "\n" << form;
    EXPECT_NE(form.find("probs_item = nl.divide(x=num_item[n, a0[128], a1[512]]"), std::string::npos) << form;
    EXPECT_EQ(form.find("<comprehension>"), std::string::npos) << form;
    // The store loop reads the list by its index: a loop of the form, not unrolled copies.
    EXPECT_NE(form.find("value=probs_item[p, a0[128], a1[512]])"), std::string::npos) << form;
  }
}

// The implicit transpose of `nl.matmul(xr, ...)` (no transpose_x) is the same for every chunk:
// hoist_transpose does it once per row block and the comprehension reads it (author42's bmm_softmax
// in this style: 8.49 -> 7.15 ms).
TEST(RolledComprehension, HoistTransposeTakesTheMatmulsTransposeOutOfTheComprehension) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    const loopnest::Site* hoist = site_of(sites, "hoist_transpose");
    ASSERT_TRUE(hoist) << file;
    std::string after = loopnest::apply_site(path, text, kArgs, *hoist);
    EXPECT_NE(after.find("logits = [nl.matmul(xr_t, w_sb[:, p * COLS:(p + 1) * COLS], transpose_x=True) for p in "
                         "range(n_parts)]"),
              std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
  }
}

// The list helper opens (its comprehensions are loops of the form now): the subtract of the row's
// maximum folds into the exponential's bias, inside the opened comprehension.
TEST(RolledComprehension, AListHelperOpensAndItsSubtractFoldsIntoTheBias) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    const loopnest::Site* fold = site_of(sites, "fold_bias");
    ASSERT_TRUE(fold) << file;
    EXPECT_EQ(fold->params.at("helpers"), "open");
    std::string after = loopnest::apply_site(path, text, kArgs, *fold);
    EXPECT_NE(after.find("num = [nisa.activation(op=nl.exp, data=logits[p], bias="), std::string::npos) << after;
    EXPECT_NE(after.find("for p in range(4)]"), std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
  }
}

TEST(RolledComprehension, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    // 7 since session 38: `n / den` has no engine_assign site (its ISA spelling
    // tensor_scalar(op0=nl.divide) does not compile, nki-language.md 9.1).
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 7u) << file;
  }
}

// Copies that are not one statement at another index stay the copies Python runs: chunks of two
// widths (a ragged last chunk) are a frozen comprehension still, and the kernel still prints back.
TEST(RolledComprehension, CopiesOfDifferentShapesStayUnrolled) {
  std::string path = source_dir() + kKernels[0];
  std::string text = read(path);
  const std::string made = "logits = [nl.matmul(xr, w_sb[:, p * COLS:(p + 1) * COLS]) for p in range(n_parts)]";
  ASSERT_NE(text.find(made), std::string::npos);
  text.replace(text.find(made), made.size(),
               "logits = [nl.matmul(xr, w_sb[:, p * 384:min((p + 1) * 384, C)]) for p in range(n_parts + 2)]");
  const std::string stored = "p * COLS:(p + 1) * COLS], value=probs[p])";
  ASSERT_NE(text.find(stored), std::string::npos);
  text.replace(text.find(stored), stored.size(), "p * 384:p * 384 + probs[p].shape[1]], value=probs[p])");
  text.replace(text.find("for p in range(n_parts):"), 24, "for p in range(n_parts + 2):");
  loopnest::Kernel k = loopnest::lift_source(path, text, kArgs);
  std::string form = loopnest::dump(k);
  EXPECT_NE(form.find("inline <comprehension>"), std::string::npos) << form;
  auto want = run(path, text, kArgs);
  for (const auto& site : loopnest::find_sites(k))
    EXPECT_LT(rel_error(run(path, loopnest::apply_site(path, text, kArgs, site), kArgs), want), 1e-5) << site.key();
}

}  // namespace

namespace {

// fuse_nests of two comprehensions' loops (`a_tiles = [nl.load(a[i]) ...]`, `b_tiles = [...]` over
// one range) leaves one loop of two statements, which no comprehension spells: refused as such.
// Before, the loop (not marked changed) was copied as the first comprehension, dropping the
// second (`b_tiles` undefined when lifted again; author42 swiglu's `wg` / `wu` showed a later
// `x_t[r]` error instead).
TEST(RolledComprehension, FusedComprehensionLoopsAreRefusedNotPrintedAsTheFirst) {
  std::string path = source_dir() + "/tests/kernels/paired_load_comprehensions_api.py";
  std::string text = read(path);
  const std::vector<loopnest::ArgSpec> args = arrays({{4, 128, 256}, {4, 128, 256}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  const loopnest::Transform* fuse = loopnest::find_transform("fuse_nests");
  ASSERT_TRUE(fuse);
  auto candidates = fuse->find(k);
  ASSERT_FALSE(candidates.empty());
  loopnest::Kernel after = k;
  fuse->apply(after, candidates.front());
  try {
    loopnest::emit(after);
    FAIL() << "printed:\n" << loopnest::emit(after);
  } catch (const loopnest::EmitError& e) {
    EXPECT_NE(std::string(e.what()).find("more than one statement"), std::string::npos) << e.what();
  }
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NE(s.transform, "fuse_nests") << s.key();
}

}  // namespace
