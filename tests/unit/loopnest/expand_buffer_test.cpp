// expand_buffer (src/loopnest/expand_buffer.cpp): scalar expansion of an on-chip buffer whose value
// never flows from one iteration of a loop to the next, and expand_interchange (chain.cpp), which
// then swaps that loop with the one inside it the reuse kept outside. The state-outer selective scan
// in three styles (tests/kernels/state_outer_scan_{api,grid,tiles}.py: a list of carry tiles with
// `0.0 if blk == 0 else carry`, an ndarray carry reset by a memset at blk == 0, an ndarray carry in
// the bundled kernels' calls) offers the same site: the carry over the state loop. Applied with the
// interchange and hoist_compute, delta and u are read once per sequence block instead of once per
// state, and the result is unchanged. Refused: a carry whose value IS live across the state loop
// (never reset), the accumulator (read before it is written in every state), an expansion that
// does not fit SBUF.
#include <gtest/gtest.h>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/state_outer_scan_" + style + ".py");
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                                     const std::string& transform) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == transform) out.push_back(s);
  return out;
}

// The interchange of the outermost pair (`for s` with `for blk`), if offered.
std::optional<loopnest::Site> outer_interchange(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  for (auto& s : sites_of(text, args, "interchange_loops"))
    if (s.params.at("depth") == "0") return s;
  return std::nullopt;
}

// delta, u (256, 2048), a (256, 4), b, c (4, 2048): 2 channel tiles, 4 states, 4 blocks of 512.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}});

void replace(std::string& text, const std::string& from, const std::string& to) {
  ASSERT_NE(text.find(from), std::string::npos) << from;
  text.replace(text.find(from), from.size(), to);
}

TEST(ExpandBuffer, FindsTheCarryOverTheStateLoopInEveryStyle) {
  std::string first;
  for (const char* style : {"api", "grid", "tiles"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = sites_of(text, kArgs, "expand_buffer");
    // Only the carry: the accumulator is read before it is written in every state.
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    EXPECT_EQ(sites[0].params.at("over"), "3");
    EXPECT_EQ(sites_of(text, kArgs, "expand_interchange").size(), 1u);
  }
}

TEST(ExpandBuffer, MakesTheStateLoopMovableInsideTheBlockLoop) {
  for (const char* style : {"api", "grid", "tiles"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    // The reused carry orders the states: no swap of `for s` and `for blk` as written.
    EXPECT_FALSE(outer_interchange(text, kArgs));
    std::string expanded = loopnest::apply_site("k.py", text, kArgs, sites_of(text, kArgs, "expand_buffer").at(0));
    EXPECT_TRUE(outer_interchange(expanded, kArgs)) << expanded;
  }
}

TEST(ExpandBuffer, WithTheInterchangeAndHoistReadsDeltaOncePerBlockAndKeepsTheResult) {
  for (const char* style : {"api", "grid", "tiles"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto want = run("k.py", text, kArgs);
    // One move: the expansion, `for s` moved inside the loops it can go inside, and what does not
    // depend on s hoisted out of it (each step alone is no faster than its parent).
    auto sites = sites_of(text, kArgs, "expand_interchange");
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_NE(sites[0].params.at("inward"), "0");
    EXPECT_NE(sites[0].params.at("hoisted"), "0");
    std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
    // 4 states x 4 blocks x 2 channel tiles, then 4 blocks x 2 channel tiles.
    EXPECT_EQ(loads_of(text, kArgs, 0), 32);
    EXPECT_EQ(loads_of(after, kArgs, 0), 8) << after;
    EXPECT_EQ(loads_of(after, kArgs, 1), 8) << after;
    EXPECT_LT(rel_error(run("k.py", after, kArgs), want), 1e-5) << after;
  }
}

TEST(ExpandBuffer, PrintsInTheAuthorsStyle) {
  std::string api = kernel_text("api");
  std::string after = loopnest::apply_site("k.py", api, kArgs, sites_of(api, kArgs, "expand_buffer").at(0));
  // A list of tiles stays a list, each a column per state; the accesses take the state's column.
  EXPECT_NE(after.find("carry_tiles.append(nl.ndarray((128, states), dtype=nl.float32, buffer=nl.sbuf))"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("nisa.tensor_copy(dst=carry_tiles[ct][:, s:s + 1], src=h[:, W - 1:W])"), std::string::npos)
      << after;
  EXPECT_NE(after.find("initial=(0.0 if blk == 0 else carry_tiles[ct][:, s:s + 1])"), std::string::npos) << after;
  // An ndarray keeps its authored dims and gets a wider last one.
  std::string tiles = kernel_text("tiles");
  after = loopnest::apply_site("k.py", tiles, kArgs, sites_of(tiles, kArgs, "expand_buffer").at(0));
  EXPECT_NE(after.find("carry = nl.ndarray((n_ct, nl.par_dim(128), states), dtype=nl.float32, buffer=nl.sbuf)"),
            std::string::npos)
      << after;
}

// `start = 0.0 if blk == 0 else carry_tiles[ct]` read only as the scan's `initial=start`: the read
// is printed with the state's column, so the binding (naming the whole wider tile) goes with it;
// in the expand_interchange move as well (its first step).
TEST(ExpandBuffer, DropsTheBindingItsReadWentThroughWhenNothingElseReadsIt) {
  const std::string binding = "start = 0.0 if blk == 0 else carry_tiles[ct]";
  std::string api = kernel_text("api");
  ASSERT_NE(api.find(binding), std::string::npos);
  std::string after = loopnest::apply_site("k.py", api, kArgs, sites_of(api, kArgs, "expand_buffer").at(0));
  EXPECT_EQ(after.find("start ="), std::string::npos) << after;
  EXPECT_NE(after.find("initial=(0.0 if blk == 0 else carry_tiles[ct][:, s:s + 1])"), std::string::npos) << after;
  after = loopnest::apply_site("k.py", api, kArgs, sites_of(api, kArgs, "expand_interchange").at(0));
  EXPECT_EQ(after.find("start ="), std::string::npos) << after;
}

TEST(ExpandBuffer, RefusesACarryLiveAcrossTheStateLoop) {
  // Never reset: each state's first block starts from the state before's last carry.
  std::string api = kernel_text("api");
  replace(api, "start = 0.0 if blk == 0 else carry_tiles[ct]", "start = carry_tiles[ct]");
  EXPECT_TRUE(sites_of(api, kArgs, "expand_buffer").empty());
  std::string grid = kernel_text("grid");
  replace(grid, "        if i2 == 0:\n", "        if i1 == 0:\n");  // reset at the first state only
  EXPECT_TRUE(sites_of(grid, kArgs, "expand_buffer").empty());
  EXPECT_FALSE(outer_interchange(grid, kArgs));
}

TEST(ExpandBuffer, RefusesAnExpansionThatDoesNotFitSbuf) {
  // A carry as wide as the block (the scan's whole result kept, its last column read): one copy per
  // state is 2 KiB x states per partition.
  std::string api = kernel_text("api");
  replace(api, "carry_tiles.append(nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf))",
          "carry_tiles.append(nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf))");
  replace(api, "start = 0.0 if blk == 0 else carry_tiles[ct]", "start = 0.0 if blk == 0 else carry_tiles[ct][:, W - 1:W]");
  replace(api, "nisa.tensor_copy(dst=carry_tiles[ct], src=h[:, W - 1:W])", "nisa.tensor_copy(dst=carry_tiles[ct], src=h)");
  // 4 states: 16 KiB, it fits.
  EXPECT_EQ(sites_of(api, kArgs, "expand_buffer").size(), 1u);
  // 128 states: 256 KiB per partition for the carries alone, over the 192 KiB of trn1.
  auto many = arrays({{256, 2048}, {256, 2048}, {256, 128}, {128, 2048}, {128, 2048}});
  EXPECT_TRUE(sites_of(api, many, "expand_buffer").empty());
}

}  // namespace
