// privatize_buffer (src/loopnest/privatize_buffer.cpp): a hand-written ring buffer declared outside a
// sequential loop, `ring[r % NBUF]` the iteration's slot, filled chunk by chunk and then read whole,
// declared inside the loop without its slot dim, so the loop's iterations commute and affine_loop
// (and jam_rows) apply. The row softmax in the legacy nisa style (an ndarray with a slot dim before
// par_dim, tests/kernels/ring_softmax_nisa.py) and in the newer nki API (a Python list of slot tiles,
// ring_softmax_api.py) offers the same site; the result computes the same. Refused: an iteration
// reading its slot before writing it (a carry through the ring, or a slot only partly written), the
// ring read after the loop, a ring indexed by two slot expressions (a prefetch into the next slot).
// Tiles declared once and reused in place, one written through an output operand (activation's
// reduce_res), privatize like any other (tests/kernels/reused_softmax_{nisa,api}.py); so do tiles
// written as two 64-partition halves and read whole (stacked_halves_{nisa,api}.py).
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

// x (512, 1024): 4 row tiles, 2 chunks of 512 per slot.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{512, 1024}});

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/ring_softmax_" + style + ".py");
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::string& transform) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, kArgs)))
    if (s.transform == transform) out.push_back(s);
  return out;
}

// The site privatizing alone (no then=affine_range).
loopnest::Site plain_site(const std::string& text) {
  for (auto& s : sites_of(text, "privatize_buffer"))
    if (!s.params.count("then")) return s;
  ADD_FAILURE() << "no privatize_buffer site";
  return {};
}

// `text` without its comment lines (the kernels' comments quote the ring's index).
std::string code_of(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (line.find_first_not_of(' ') == std::string::npos || line[line.find_first_not_of(' ')] != '#') out += line + "\n";
    at = end + 1;
  }
  return out;
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  ASSERT_NE(text.find(from), std::string::npos) << from;
  text.replace(text.find(from), from.size(), to);
}

TEST(PrivatizeBuffer, FindsTheRingOfTheRowLoopInEveryStyle) {
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    auto sites = sites_of(kernel_text(style), "privatize_buffer");
    ASSERT_EQ(sites.size(), 2u);  // alone, and with the loop then written affine_range
    EXPECT_EQ(sites[0].params.at("buffers"), "1");
    EXPECT_FALSE(sites[0].params.count("then"));
    EXPECT_EQ(sites[1].params.at("then"), "affine_range");
  }
}

TEST(PrivatizeBuffer, DeclaresOneTilePerIterationAndKeepsTheResult) {
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto want = run("k.py", text, kArgs);
    for (const auto& site : sites_of(text, "privatize_buffer")) {
      std::string after = loopnest::apply_site("k.py", text, kArgs, site);
      // The slot index is gone from the code; the loop's body starts by declaring the tile.
      EXPECT_EQ(code_of(after).find("% NBUF"), std::string::npos) << after;
      EXPECT_NE(code_of(text).find("\n    ring = "), std::string::npos);  // declared outside the loop before
      EXPECT_EQ(code_of(after).find("\n    ring = "), std::string::npos) << after;
      EXPECT_NE(after.find("_range(n_rt):\n        ring = nl.ndarray("), std::string::npos) << after;
      EXPECT_LT(rel_error(run("k.py", after, kArgs), want), 1e-5) << after;
    }
  }
}

TEST(PrivatizeBuffer, MakesTheLoopAffineOnlyOnceTheRingIsPrivate) {
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    EXPECT_TRUE(sites_of(text, "affine_loop").empty());
    EXPECT_TRUE(sites_of(text, "jam_rows").empty());
    std::string after = loopnest::apply_site("k.py", text, kArgs, plain_site(text));
    EXPECT_FALSE(sites_of(after, "affine_loop").empty()) << after;
    EXPECT_TRUE(sites_of(after, "privatize_buffer").empty()) << after;
  }
}

TEST(PrivatizeBuffer, RefusesACarryThroughTheRing) {
  // The nisa style: a read of the slot before the iteration writes it (what iteration r - 2 left).
  std::string carry = kernel_text("nisa");
  replace(carry, "        s = r % NBUF\n",
          "        s = r % NBUF\n        old = nisa.tensor_reduce(nl.max, data=ring[s], axis=[1], keepdims=True)\n");
  replace(carry, "operand0=inv)", "operand0=old)");
  EXPECT_TRUE(sites_of(carry, "privatize_buffer").empty());
  // The api style: the slot only half written before it is read whole.
  std::string partial = kernel_text("api");
  replace(partial, "for j in nl.affine_range(n_chunk):", "for j in nl.affine_range(n_chunk - 1):");
  EXPECT_TRUE(sites_of(partial, "privatize_buffer").empty());
}

TEST(PrivatizeBuffer, RefusesARingReadAfterTheLoop) {
  std::string text = kernel_text("nisa");
  replace(text, "    return out\n", "    nl.store(out[0:P, :], value=ring[1])\n    return out\n");
  EXPECT_TRUE(sites_of(text, "privatize_buffer").empty());
}

TEST(PrivatizeBuffer, RefusesAPrefetchIntoTheNextSlot) {
  // Iteration r fills slot (r + 1) % NBUF and reads slot r % NBUF: a value flows to the next iteration.
  std::string text = kernel_text("nisa");
  replace(text, "ring[s, :, j * F:(j + 1) * F] =", "ring[(r + 1) % NBUF, :, j * F:(j + 1) * F] =");
  EXPECT_TRUE(sites_of(text, "privatize_buffer").empty());
  std::string api = kernel_text("api");
  replace(api, "dst=ring[r % NBUF][:, j * F:(j + 1) * F]", "dst=ring[(r + 1) % NBUF][:, j * F:(j + 1) * F]");
  EXPECT_TRUE(sites_of(api, "privatize_buffer").empty());
}

// The reused tiles of a row softmax, the row sum written by the exponential's reduce_res (an output
// operand: a write, not a read of what the previous iteration left).
TEST(PrivatizeBuffer, TilesWrittenThroughAnOutputOperandArePrivate) {
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    std::string text = read(source_dir() + "/tests/kernels/reused_softmax_" + style + ".py");
    EXPECT_TRUE(sites_of(text, "affine_loop").empty());
    auto sites = sites_of(text, "privatize_buffer");
    ASSERT_EQ(sites.size(), 2u);
    EXPECT_EQ(sites[0].params.at("buffers"), "3");  // sc, stat, ssum
    auto want = run("k.py", text, kArgs);
    for (const auto& site : sites) {
      std::string after = loopnest::apply_site("k.py", text, kArgs, site);
      EXPECT_NE(after.find("_range(rows // P):\n        sc = nl.ndarray("), std::string::npos) << after;
      EXPECT_LT(rel_error(run("k.py", after, kArgs), want), 1e-5) << after;
      if (!site.params.count("then")) EXPECT_FALSE(sites_of(after, "affine_loop").empty()) << after;
    }
    // The sum read before the iteration writes it: what the previous row left flows in.
    std::string carry = text;
    if (std::string(style) == "nisa")
      replace(carry, "        stat[...] = nisa.tensor_reduce(", "        sc[...] = nisa.tensor_scalar(sc, op0=nl.add, operand0=ssum)\n        stat[...] = nisa.tensor_reduce(");
    else
      replace(carry, "        nisa.tensor_reduce(dst=stat,", "        nisa.tensor_scalar(dst=sc, data=sc, op0=nl.add, operand0=ssum)\n        nisa.tensor_reduce(dst=stat,");
    EXPECT_TRUE(sites_of(carry, "privatize_buffer").empty()) << carry;
  }
}

// Two 64-partition halves written, the 128-partition tile read whole: the halves together cover it.
TEST(PrivatizeBuffer, HalvesThatTogetherCoverTheTileArePrivate) {
  const std::vector<loopnest::ArgSpec> args = arrays({{64, 2048}, {64, 2048}});
  auto sites_in = [&](const std::string& text, const std::string& transform) {
    std::vector<loopnest::Site> out;
    for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
      if (s.transform == transform) out.push_back(s);
    return out;
  };
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    std::string text = read(source_dir() + "/tests/kernels/stacked_halves_" + style + ".py");
    auto sites = sites_in(text, "privatize_buffer");
    ASSERT_EQ(sites.size(), 2u);
    EXPECT_EQ(sites[0].params.at("buffers"), "2");
    auto want = run("k.py", text, args);
    for (const auto& site : sites) {
      std::string after = loopnest::apply_site("k.py", text, args, site);
      EXPECT_LT(rel_error(run("k.py", after, args), want), 1e-6) << after;
    }
    // One half of tb left unwritten: the whole read sees what the previous iteration left there.
    std::string half = text;
    if (std::string(style) == "nisa") replace(half, "        tb[bot, :] = nl.load(b[:, cb])\n", "");
    else replace(half, "        nisa.dma_copy(dst=tb[H:2 * H, :], src=b[:, c0 + F:c0 + 2 * F])\n", "");
    // (ta alone would privatize, but tb still orders the loop: no site.)
    EXPECT_TRUE(sites_in(half, "privatize_buffer").empty()) << half;
  }
}

}  // namespace
