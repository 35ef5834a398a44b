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

// The sites of `name` (on `args`) offered through an undone pipeline, by move, anchor and
// parameters (not line).
std::set<std::string> undone_sites_with(const std::string& name, const std::vector<loopnest::ArgSpec>& args) {
  std::set<std::string> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(name, kernel_text(name), args))) {
    if (!s.params.count("pipeline")) continue;
    std::string key = s.transform + " " + s.anchor;
    for (const auto& [k, v] : s.params)
      if (k != "line") key += " " + k + "=" + v;
    out.insert(key);
  }
  return out;
}

std::set<std::string> undone_sites(const std::string& name) { return undone_sites_with(name, kArgs); }

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

// A ragged last tile (rows = 3 * 128 + 64): the prefetch writes the rows of tile j + 1 into part
// of the other slot, the body reads those rows of its own slot (session 37, held-out adamw).
const std::vector<loopnest::ArgSpec> kRagged = arrays({{448, 256}, {128, 256}});
const std::vector<loopnest::ArgSpec> kTable = arrays({{128, 256}, {4, 256}});

// As `undone`, on `args`, with the helpers opened first (find_sites undoes pipelines on the kernel
// whose helpers it opened: a prefetch through a helper call).
int undone_with(const std::string& text, const std::vector<loopnest::ArgSpec>& args, std::string* printed = nullptr) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::open_helpers(k);
  int count = loopnest::unpipeline_loops(k);
  if (printed && count) {
    *printed = loopnest::emit_checked(k, args);
    *printed = printed->substr(printed->find("def kernel"));
  }
  return count;
}

TEST(Unpipeline, UndoesAPrefetchIntoARegionOfASlot) {
  // Legacy API through a helper, with a scratch ring (`res[i % 2]`, written and stored in one
  // iteration) that goes too; the newer API's list of buffers.
  for (const char* name : {"prefetch_ragged.py", "prefetch_ragged_api.py"}) {
    std::string printed;
    ASSERT_EQ(undone_with(kernel_text(name), kRagged, &printed), 1) << name;
    EXPECT_EQ(printed.find("% 2"), std::string::npos) << printed;
    EXPECT_EQ(printed.find("if i + 1 < n"), std::string::npos) << printed;
    EXPECT_NE(printed.find("for i in nl.affine_range(n):"), std::string::npos) << printed;
    // The tile of iteration i loaded into the rows the body reads, of a tile declared in the loop.
    EXPECT_NE(printed.find("[0:min(-128*i + 448, 128), :]"), std::string::npos) << printed;
  }
  std::string printed;
  undone_with(kernel_text("prefetch_ragged.py"), kRagged, &printed);
  EXPECT_NE(printed.find("        res = nl.ndarray((nl.par_dim(P), cols)"), std::string::npos) << printed;
  // The reads as the author wrote them, without the slot.
  EXPECT_NE(printed.find("e = nl.exp(ring[0:nr, :])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("nl.store(out[r0:r0 + nr, :], value=res[0:nr, :])"), std::string::npos) << printed;
}

TEST(Unpipeline, UndoesALoadBroadcastOverThePartitions) {
  std::string printed;
  ASSERT_EQ(undone_with(kernel_text("prefetch_bcast.py"), kTable, &printed), 1);
  EXPECT_EQ(printed.find("% 2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("for s in nl.affine_range(S):"), std::string::npos) << printed;
  EXPECT_NE(printed.find("broadcast_to"), std::string::npos) << printed;
  const auto sites = undone_sites_with("prefetch_bcast.py", kTable);
  EXPECT_TRUE(sites.count("jam_rows 4/load#0 factor=2 pipeline=undone")) << ::testing::PrintToString(sites);
}

TEST(Unpipeline, SplitsTheFlattenedLoopItUndoes) {
  // The ring carried the flattened loop: split (4 row tiles x 2 column tiles) and written affine
  // once undone, its nest's moves offered.
  const auto sites = undone_sites_with("prefetch_flat_tiles.py", kRagged);
  EXPECT_TRUE(sites.count("tile_size 4x2/load#0 direction=coarsen factor=2 flat_loops=split loop=4x2>1 pipeline=undone"))
      << ::testing::PrintToString(sites);
}

TEST(Unpipeline, LeavesARegionPrefetchThatIsNoPipeline) {
  // The body reads whole slots where the last tile fills half of one.
  std::string text = kernel_text("prefetch_ragged.py");
  replace(text, "e = nl.exp(ring[i % 2, 0:nr, :])", "e = nl.exp(ring[i % 2, 0:P, :])");
  EXPECT_EQ(undone_with(text, kRagged), 0);
  // The broadcast row's table is written in the loop: loaded one iteration early, it would be old.
  text = kernel_text("prefetch_bcast.py");
  replace(text, "        nl.store(out[s * P:(s + 1) * P, :], value=y)",
          "        nl.store(out[s * P:(s + 1) * P, :], value=y)\n        nl.store(w[s:s + 1, :], value=y[0:1, :])");
  EXPECT_EQ(undone_with(text, kTable), 0);
  // The broadcast tile also read by the body: the load is no prefetch of the ring alone.
  text = kernel_text("prefetch_bcast.py");
  replace(text, "            w_ring[(s + 1) % 2] = nl.load(w[s + 1:s + 2, :]).broadcast_to((P, cols))",
          "            w_row = nl.load(w[s + 1:s + 2, :])\n            w_ring[(s + 1) % 2] = w_row.broadcast_to((P, cols))\n"
          "            nl.store(out[0:1, :], value=w_row)");
  EXPECT_EQ(undone_with(text, kTable), 0);
}

}  // namespace
