// pipeline_scan (src/loopnest/pipeline_scan.cpp): a selective scan with its state loop outermost, the
// carry declared inside it and a full-row accumulator, made a pipelined scan in one move (carry
// expanded per state, the state loop inside the chunk loop, the accumulator cut to the chunk's
// window, stored per chunk and kept in PSUM). The same site in two styles
// (tests/kernels/state_outer_rowacc{,_api}.py); every site keeps the result; refused where a
// dependence forbids a step: a carry live across states, an accumulator read whole inside the
// state loop, a store reading another window. The printed kernels are GoldenRewrites'
// (state_outer_rowacc{,_api}.pipeline_scan).
#include <array>

#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

// delta, u (256, 2048), a (256, 4), b, c (4, 2048): 2 channel tiles, 4 states, 4 chunks of 512.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}});

std::string path_of(const std::string& style) {
  return source_dir() + "/tests/kernels/state_outer_rowacc" + style + ".py";
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::string& transform = "pipeline_scan") {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, kArgs)))
    if (s.transform == transform) out.push_back(s);
  return out;
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  ASSERT_NE(text.find(from), std::string::npos) << from;
  text.replace(text.find(from), from.size(), to);
}

TEST(PipelineScan, FindsTheStateLoopInEveryStyleWithOneKey) {
  std::string first;
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = read(path_of(style));
    auto sites = sites_of(text);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    EXPECT_EQ(sites[0].params.at("psum"), "yes");  // (128, 512) fp32: one bank
    // As written no step alone is offered: the carry is declared in the state loop (expand_buffer,
    // expand_interchange), the nest is not perfect (interchange_loops), the row fits no bank.
    EXPECT_TRUE(sites_of(text, "expand_buffer").empty());
    EXPECT_TRUE(sites_of(text, "expand_interchange").empty());
    EXPECT_TRUE(sites_of(text, "psum_accumulate").empty());
  }
}

TEST(PipelineScan, EverySiteKeepsTheResult) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    const std::string path = path_of(style);
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u);
  }
}

TEST(PipelineScan, TheAccumulatorBecomesAPsumWindowStoredPerChunk) {
  // (style, carry, accumulator)
  for (auto [style, carry, acc] : {std::array<const char*, 3>{"", "state", "row_sum"}, {"_api", "last", "total"}}) {
    SCOPED_TRACE(style);
    const std::string path = path_of(style);
    std::string text = read(path);
    std::string after = loopnest::apply_site(path, text, kArgs, sites_of(text).at(0));
    loopnest::Kernel k = loopnest::lift_source(path, after, kArgs);
    auto named = [&](const std::string& name) -> const loopnest::Tensor* {
      for (const auto& t : k.tensors)
        if (t.name == name) return &t;
      return nullptr;
    };
    const loopnest::Tensor *c = named(carry), *a = named(acc);
    ASSERT_TRUE(c && a) << after;
    // One carry column per state; the accumulator one (128, 512) PSUM window, stored per chunk.
    EXPECT_EQ(c->memory, loopnest::Memory::Sbuf);
    EXPECT_EQ(c->shape.back(), loopnest::IExpr(4)) << after;
    EXPECT_EQ(a->memory, loopnest::Memory::Psum) << after;
    EXPECT_EQ(a->shape.back(), loopnest::IExpr(512)) << after;
    // The chunk loop outside the state loop now, its header as written.
    ASSERT_NE(after.find("for j in"), std::string::npos);
    EXPECT_LT(after.find("for j in"), after.find("for s in")) << after;
    EXPECT_EQ(after.find("sequential_range(4)"), std::string::npos) << after;
    // The window's width in the author's name (the chunk loop's `seq // W`): a later free_size of W
    // finds no literal 512 spelling it too.
    const size_t decl = after.find(std::string(acc) + " = nl.");
    ASSERT_NE(decl, std::string::npos) << after;
    EXPECT_NE(after.substr(decl, after.find('\n', decl) - decl).find("(128, W)"), std::string::npos) << after;
    EXPECT_TRUE(sites_of(after).empty()) << after;
  }
}

TEST(PipelineScan, RefusesACarryLiveAcrossStates) {
  // Declared once before the state loop, zeroed never again: each state starts from the last.
  std::string text = read(path_of(""));
  replace(text, "        for s in nl.affine_range(S):\n            state = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n",
          "        state = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n        for s in nl.affine_range(S):\n");
  EXPECT_TRUE(sites_of(text).empty());
  // Declared in the state loop but not filled: its first chunk reads what the last state left.
  std::string api = read(path_of("_api"));
  replace(api, "            nisa.memset(dst=last, value=0.0)\n", "");
  EXPECT_TRUE(sites_of(api).empty());
}

TEST(PipelineScan, RefusesAnAccumulatorReadOutsideItsChunksWindow) {
  // Each chunk adds the row's first window too: iteration j reads columns other than its own.
  std::string text = read(path_of(""));
  replace(text, "row_sum[:, cols] += nisa.tensor_tensor(h, c_row, op=nl.multiply)",
          "row_sum[:, cols] += nisa.tensor_tensor(h, row_sum[:, 0:W], op=nl.multiply)");
  EXPECT_TRUE(sites_of(text).empty());
  // The store writes half the row: it does not write the accumulator whole.
  std::string half = read(path_of(""));
  replace(half, "        nl.store(out[rows, :], value=row_sum)\n",
          "        nl.store(out[rows, 0:M // 2], value=row_sum[:, 0:M // 2])\n");
  EXPECT_TRUE(sites_of(half).empty());
}

}  // namespace
