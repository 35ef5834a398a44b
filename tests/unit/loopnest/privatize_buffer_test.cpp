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
//
// Scratch tiles declared once and shared by several loops (session 45): a legacy kernel passing two
// tiles to a module-level helper called for the full row tiles and for the ragged tail
// (tests/kernels/scratch_tail_nisa.py), a newer-API kernel whose closure names the tiles and whose
// second phase reuses them (scratch_phases_api.py). Each loop using them gets its own declaration,
// the helper and its calls as written. Refused: a value the main loop leaves for the tail, a ring
// whose slot dim a helper's body would have to lose, a phase reading a tile before writing it.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"
#include "text_edit.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::replace;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

// x (512, 1024): 4 row tiles, 2 chunks of 512 per slot.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{512, 1024}});

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/ring_softmax_" + style + ".py");
}

std::vector<loopnest::Site> sites_with(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                                       const std::string& transform) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == transform) out.push_back(s);
  return out;
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::string& transform) {
  return sites_with(text, kArgs, transform);
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

// A reused tile also serving before the loop (a landing row written and read there): the author's
// declaration stays for those accesses and the loop declares its own copy. Refused when the loop's
// value is read after it, or the row before the loop is read before it is written.
TEST(PrivatizeBuffer, ATileUsedBeforeTheLoopKeepsItsDeclarationAndTheLoopGetsACopy) {
  const std::string text = read(source_dir() + "/tests/kernels/reused_softmax_nisa.py");
  std::string before = text;
  replace(before, "    for r in nl.sequential_range(rows // P):\n",
          "    sc[0:1, :] = nl.load(x[0:1, :])\n    nl.store(out[0:1, :], value=nl.exp(sc[0:1, :]))\n"
          "    for r in nl.sequential_range(rows // P):\n");
  auto sites = sites_of(before, "privatize_buffer");
  ASSERT_EQ(sites.size(), 2u) << before;
  EXPECT_EQ(sites[0].params.at("buffers"), "3");
  auto want = run("k.py", before, kArgs);
  for (const auto& site : sites) {
    std::string after = loopnest::apply_site("k.py", before, kArgs, site);
    EXPECT_NE(after.find("\n    sc = nl.ndarray("), std::string::npos) << after;  // kept for the landing row
    EXPECT_NE(after.find("_range(rows // P):\n        sc = nl.ndarray("), std::string::npos) << after;
    EXPECT_LT(rel_error(run("k.py", after, kArgs), want), 1e-5) << after;
  }
  std::string read_after = text;
  replace(read_after, "    return out\n", "    nl.store(out[0:P, :], value=sc)\n    return out\n");
  EXPECT_TRUE(sites_of(read_after, "privatize_buffer").empty()) << read_after;
  std::string unwritten = text;
  replace(unwritten, "    for r in nl.sequential_range(rows // P):\n",
          "    nl.store(out[0:1, :], value=nl.exp(sc[0:1, :]))\n    for r in nl.sequential_range(rows // P):\n");
  EXPECT_TRUE(sites_of(unwritten, "privatize_buffer").empty()) << unwritten;
}

// Two 64-partition halves written, the 128-partition tile read whole: the halves together cover it.
TEST(PrivatizeBuffer, HalvesThatTogetherCoverTheTileArePrivate) {
  const std::vector<loopnest::ArgSpec> args = arrays({{64, 2048}, {64, 2048}});
  for (const char* style : {"nisa", "api"}) {
    SCOPED_TRACE(style);
    std::string text = read(source_dir() + "/tests/kernels/stacked_halves_" + style + ".py");
    auto sites = sites_with(text, args, "privatize_buffer");
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
    EXPECT_TRUE(sites_with(half, args, "privatize_buffer").empty()) << half;
  }
}

// ---- Scratch tiles shared by a main loop and its tail, or by two phases ----

// a, b (320, 512): two full row tiles, a 64-row tail, two column chunks each.
const std::vector<loopnest::ArgSpec> kTailArgs = arrays({{320, 512}, {320, 512}});
// x (512, 256): two row tiles per phase.
const std::vector<loopnest::ArgSpec> kPhaseArgs = arrays({{512, 256}});

std::string scratch_text(const std::string& name) { return read(source_dir() + "/tests/kernels/" + name + ".py"); }

// The privatize_buffer site on the loop at `line` (then=affine_range or not).
loopnest::Site site_at(const std::string& text, const std::vector<loopnest::ArgSpec>& args, int line, bool affine) {
  for (auto& s : sites_with(text, args, "privatize_buffer"))
    if (s.line == line && s.params.count("then") == (affine ? 1u : 0u)) return s;
  ADD_FAILURE() << "no privatize_buffer site at line " << line;
  return {};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text from `from` to the next blank line (a helper's def, unchanged by the move).
std::string block_of(const std::string& text, const std::string& from) {
  size_t at = text.find(from);
  return at == std::string::npos ? "" : text.substr(at, text.find("\n\n", at) - at);
}

TEST(PrivatizeBuffer, DeclaresTheTilesAHelperTouchesInTheMainLoopAndTheTail) {
  std::string text = scratch_text("scratch_tail_nisa");
  auto sites = sites_with(text, kTailArgs, "privatize_buffer");
  // On the row loop and on its column loop (each alone and then affine); the tail's own column
  // loop would print the same kernel as the main column loop's: not offered twice.
  ASSERT_EQ(sites.size(), 4u);
  for (const auto& s : sites) EXPECT_EQ(s.params.at("buffers"), "2");
  auto want = run("k.py", text, kTailArgs);
  // The main column loop (line 36): declared per column chunk there and in the tail's column loop.
  for (bool affine : {false, true}) {
    SCOPED_TRACE(affine);
    std::string after = loopnest::apply_site("k.py", text, kTailArgs, site_at(text, kTailArgs, 36, affine));
    EXPECT_EQ(code_of(after).find("\n    ta = "), std::string::npos) << after;  // not at the top any more
    EXPECT_EQ(count(after, "            ta = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)\n"), 2u) << after;
    EXPECT_EQ(count(after, "            tb = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)\n"), 2u) << after;
    // The helper and its calls print as written.
    EXPECT_EQ(block_of(after, "def _half_sq_diff"), block_of(text, "def _half_sq_diff"));
    EXPECT_EQ(count(after, "_half_sq_diff(a, b, out, ta, tb, t * P, P, c * F)"), 1u);
    EXPECT_EQ(count(after, "_half_sq_diff(a, b, out, ta, tb, n_full * P, tail, c * F)"), 1u);
    // All three loops written affine_range by the second site: the row loop is freed as well.
    EXPECT_EQ(count(after, "nl.affine_range("), affine ? 3u : 0u) << after;
    EXPECT_LT(rel_error(run("k.py", after, kTailArgs), want), 1e-5) << after;
    // It lifts again: nothing is left to privatize, and the loops now commute.
    EXPECT_TRUE(sites_with(after, kTailArgs, "privatize_buffer").empty()) << after;
    if (!affine) EXPECT_EQ(sites_with(after, kTailArgs, "affine_loop").size(), 4u) << after;  // 3 loops, and all=3
  }
  EXPECT_TRUE(sites_with(text, kTailArgs, "affine_loop").empty());
}

TEST(PrivatizeBuffer, DeclaresTheTilesAClosureNamesInEachPhase) {
  std::string text = scratch_text("scratch_phases_api");
  auto sites = sites_with(text, kPhaseArgs, "privatize_buffer");
  ASSERT_EQ(sites.size(), 2u);  // one privatization for both phases, alone and then affine
  EXPECT_EQ(sites[1].params.at("then"), "affine_range");
  auto want = run("k.py", text, kPhaseArgs);
  for (const auto& s : sites) {
    std::string after = loopnest::apply_site("k.py", text, kPhaseArgs, s);
    EXPECT_EQ(block_of(after, "    def scale_rows"), block_of(text, "    def scale_rows"));
    EXPECT_NE(after.find("(half // P):\n        buf = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)\n"
                         "        res = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)\n        scale_rows(i * P)"),
              std::string::npos)
        << after;
    EXPECT_EQ(count(after, "        buf = nl.ndarray("), 2u) << after;
    EXPECT_EQ(count(after, "nl.affine_range("), s.params.count("then") ? 2u : 0u) << after;
    EXPECT_LT(rel_error(run("k.py", after, kPhaseArgs), want), 1e-5) << after;
    if (!s.params.count("then")) EXPECT_FALSE(sites_with(after, kPhaseArgs, "affine_loop").empty()) << after;
  }
}

TEST(PrivatizeBuffer, EverySiteOfTheSharedScratchKernelsKeepsTheResult) {
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result("k.py", scratch_text("scratch_tail_nisa"), kTailArgs), 0u);
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result("k.py", scratch_text("scratch_phases_api"), kPhaseArgs), 0u);
}

TEST(PrivatizeBuffer, RefusesAValueTheMainLoopLeavesForTheTail) {
  // The tail stores what the last full tile left in `tb` before its own call overwrites it.
  std::string text = scratch_text("scratch_tail_nisa");
  replace(text, "        for c in nl.sequential_range(N // F):\n            _half_sq_diff(a, b, out, ta, tb, n_full * P,",
          "        for c in nl.sequential_range(N // F):\n"
          "            nl.store(out[nl.ds(n_full * P, tail), nl.ds(c * F, F)], value=tb[nl.ds(0, tail), :])\n"
          "            _half_sq_diff(a, b, out, ta, tb, n_full * P,");
  EXPECT_TRUE(sites_with(text, kTailArgs, "privatize_buffer").empty());
}

TEST(PrivatizeBuffer, RefusesARingWhoseSlotDimAHelperWouldLose) {
  // `ta` a ring of 2 slots, row tile t's slot `ta[t % 2]` passed to the helper (4 row tiles, no
  // tail): privatizing it in the row loop would drop the slot dim, rewriting the helper's accesses,
  // which print as written: no site on the row loop. In the column loop the ring only moves (each
  // column chunk uses the slot of its row tile): that site stays, the helper and its call unchanged.
  std::string text = scratch_text("scratch_tail_nisa");
  replace(text, "ta = nl.ndarray((P, F),", "ta = nl.ndarray((2, nl.par_dim(P), F),");
  replace(text, "_half_sq_diff(a, b, out, ta, tb, t * P,", "_half_sq_diff(a, b, out, ta[t % 2], tb, t * P,");
  replace(text, "    if tail > 0:\n        for c in nl.sequential_range(N // F):\n"
                "            _half_sq_diff(a, b, out, ta, tb, n_full * P, tail, c * F)\n", "");
  const auto args = arrays({{512, 512}, {512, 512}});
  auto sites = sites_with(text, args, "privatize_buffer");
  ASSERT_FALSE(sites.empty());
  auto want = run("k.py", text, args);
  for (const auto& s : sites) {
    EXPECT_EQ(s.summary.find("inside `for t`"), std::string::npos) << s.summary;
    std::string after = loopnest::apply_site("k.py", text, args, s);
    EXPECT_NE(after.find("\n            ta = nl.ndarray((2, nl.par_dim(P), F),"), std::string::npos) << after;
    EXPECT_NE(after.find("_half_sq_diff(a, b, out, ta[t % 2], tb, t * P, P, c * F)"), std::string::npos) << after;
    EXPECT_LT(rel_error(run("k.py", after, args), want), 1e-5) << after;
  }
}

TEST(PrivatizeBuffer, RefusesATileAClosureBindsWhenDefined) {
  // A default argument is evaluated when the def runs: `buf=buf` keeps the tile declared at the top,
  // which a declaration moved into the loops would no longer bind. (The def statement names the
  // buffer outside any loop: the rule that no other statement names it refuses.)
  std::string text = scratch_text("scratch_phases_api");
  replace(text, "def scale_rows(r0):", "def scale_rows(r0, buf=buf):");
  ASSERT_LT(rel_error(run("k.py", text, kPhaseArgs), run("k.py", scratch_text("scratch_phases_api"), kPhaseArgs)), 1e-6);
  for (const auto& s : sites_with(text, kPhaseArgs, "privatize_buffer"))
    EXPECT_EQ(s.summary.find("`buf`"), std::string::npos) << s.summary;
}

TEST(PrivatizeBuffer, RefusesAPhaseReadingATileBeforeWritingIt) {
  // The second phase adds what `res` holds (the first phase's last tile, then its own previous one).
  std::string text = scratch_text("scratch_phases_api");
  replace(text, "nisa.tensor_tensor(dst=res, data1=buf, data2=buf, op=nl.multiply)",
          "nisa.tensor_tensor(dst=res, data1=buf, data2=res, op=nl.add)");
  EXPECT_TRUE(sites_with(text, kPhaseArgs, "privatize_buffer").empty());
}

}  // namespace
