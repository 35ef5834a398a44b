// reduce_per_chunk (src/loopnest/reduce_chunks.cpp): a row written chunk by chunk in a loop and
// reduced whole after it is reduced chunk by chunk inside the loop, then once over the partial
// results. Three styles of the construct (tests/kernels/row_max_chunks.py, legacy API;
// row_max_chunks_api.py, newer API; row_sum_chunks_grid.py, index grids and a sum), and the
// dependences that refuse it: a row written again after the loop, chunks that do not tile the
// reduced region, a loop between the row's loop and the reduction writing the row.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::replace;
using loopnest_test::run;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
  std::string op;        // the reduction's op
  std::string row;       // the reduced row buffer
  std::string loop_var;  // the loop writing it
};

std::vector<Case> cases() {
  return {{"/tests/kernels/row_max_chunks.py", arrays({{64, 256}, {64, 2048}}), "max", "row", "j"},
          {"/tests/kernels/row_max_chunks_api.py", arrays({{64, 256}, {64, 2048}}), "max", "row", "j"},
          {"/tests/kernels/row_sum_chunks_grid.py", arrays({{256, 1024}}), "add", "sq", "c"}};
}

std::vector<loopnest::Site> sites_of(const std::string& path, const std::string& text,
                                     const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "reduce_per_chunk") out.push_back(s);
  return out;
}

TEST(ReducePerChunk, TheRowsReductionMovesIntoTheLoopWritingTheRow) {
  for (const auto& c : cases()) {
    std::string path = source_dir() + c.file;
    std::string text = read(path);
    auto sites = sites_of(path, text, c.args);
    ASSERT_EQ(sites.size(), 1u) << c.file;
    EXPECT_EQ(sites[0].params.at("op"), c.op);
    std::string after = loopnest::apply_site(path, text, c.args, sites[0]);
    // On the result's form: a reduction of the row's chunk inside the loop over `loop_var`, and the
    // reduction after the loop reads the partial results, not the row.
    std::string form = loopnest::dump(loopnest::lift_source(path, after, c.args));
    auto loop = form.find("for " + c.loop_var + " in affine_range(");
    ASSERT_NE(loop, std::string::npos) << form;
    auto partial = form.find("nisa.tensor_reduce(op=" + c.op + ", data=" + c.row + "[", loop);
    EXPECT_NE(partial, std::string::npos) << form;
    EXPECT_EQ(form.find("data=" + c.row + ", axis"), std::string::npos) << form;
    EXPECT_LT(rel_error(run(path, after, c.args), run(path, text, c.args)), 1e-5) << after;
    // Offered once: the result has no whole-row reduction left to split (its one-column partial
    // results are no chunks: reducing one element is a copy).
    EXPECT_TRUE(sites_of(path, after, c.args).empty()) << after;
  }
}

TEST(ReducePerChunk, EverySiteOfTheKernelsKeepsTheirResult) {
  for (const auto& c : cases()) {
    std::string path = source_dir() + c.file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), c.args), 0u) << c.file;
  }
}

// The row written again between the loop and the reduction: the reduction reads that write, which
// no chunk's partial result saw.
TEST(ReducePerChunk, RefusedWhenTheRowIsWrittenAfterTheLoop) {
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string text = read(path);
  replace(text, "        neg_max = nisa.tensor_reduce(",
          "        row[:, 0:128] = nisa.activation(op=nl.copy, data=row[:, 128:256], scale=2.0)\n"
          "        neg_max = nisa.tensor_reduce(");
  EXPECT_TRUE(sites_of(path, text, c.args).empty());
}

// The loop writes only the first half of the row (the reduction reads chunks nobody wrote in the
// loop, or a second writer wrote): the chunks do not tile the reduced region.
TEST(ReducePerChunk, RefusedWhenTheChunksDoNotTileTheReducedRegion) {
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string text = read(path);
  replace(text, "for j in nl.affine_range(N // CHUNK):", "for j in nl.affine_range(N // CHUNK // 2):");
  replace(text, "        neg_max = nisa.tensor_reduce(",
          "        row[:, N // 2:N] = nisa.activation(op=nl.copy, data=row[:, 0:N // 2], scale=1.0)\n"
          "        neg_max = nisa.tensor_reduce(");
  EXPECT_TRUE(sites_of(path, text, c.args).empty());
}

// The row's writer inside a configuration's branch (author56's `if cfg["score_evict_on_scalar"]:`,
// decided at trace time: an `if` on constants on the form) runs in every iteration: offered, and the
// partial reduction goes into the branch with it. A branch on the loop variable writes some chunks
// only: refused.
TEST(ReducePerChunk, ReachesAWriterInABranchDecidedAtTraceTime) {
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string decided = read(path);
  replace(decided, "            row[:, j * CHUNK:(j + 1) * CHUNK] = nisa.activation(",
          "            if CHUNK > 0:\n                row[:, j * CHUNK:(j + 1) * CHUNK] = nisa.activation(");
  auto sites = sites_of(path, decided, c.args);
  ASSERT_EQ(sites.size(), 1u) << decided;
  std::string after = loopnest::apply_site(path, decided, c.args, sites[0]);
  EXPECT_NE(after.find("            if CHUNK > 0:\n                row[:, j * CHUNK:(j + 1) * CHUNK] = "
                       "nisa.activation(op=nl.copy, data=ps, scale=0.125)\n                row_max[:, j:j + 1] = "
                       "nisa.tensor_reduce("),
            std::string::npos)
      << after;
  EXPECT_LT(rel_error(run(path, after, c.args), run(path, decided, c.args)), 1e-5) << after;

  std::string per_iteration = read(path);
  replace(per_iteration, "            row[:, j * CHUNK:(j + 1) * CHUNK] = nisa.activation(",
          "            if j < 2:\n                row[:, j * CHUNK:(j + 1) * CHUNK] = nisa.activation(");
  EXPECT_TRUE(sites_of(path, per_iteration, c.args).empty());
}

}  // namespace
