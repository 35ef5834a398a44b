// Ragged windows (src/loopnest/ragged_window.cpp, tile_size's sites with window=W'): a rotary
// embedding walking its columns in 768-wide windows, the last one cut by a mask
// (tests/kernels/rope_ragged_grid.py), by `min()` with slices (rope_ragged_tiles.py) or by `min()`
// with `nl.ds` in the newer API (rope_ragged_api.py), offers the same window widths in every style.
// A width that divides the axis drops the guard; one that does not keeps it, written for the new
// width; both keep the kernel's result. A reduction along the window, a tile carried across
// windows, a tile made before the loop and a mask that is not the guard refuse the site.
// fill_partitions takes such a loop in one move, re-windowed so that it fills.
#include <set>

#include <gtest/gtest.h>

#include "corpus.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::replace;
using loopnest_test::run;
using loopnest_test::source_dir;

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/rope_ragged_" + style + ".py");
}

std::vector<loopnest::ArgSpec> args_for(int64_t seq) { return arrays({{128, seq}, {64, seq}, {64, seq}}); }

// The window sites (tile_size with a `window` parameter).
std::vector<loopnest::Site> windows_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "tile_size" && s.params.count("window")) out.push_back(s);
  return out;
}

loopnest::Site window(const std::string& text, const std::vector<loopnest::ArgSpec>& args, const std::string& width) {
  for (auto& s : windows_of(text, args))
    if (s.params.at("window") == width) return s;
  ADD_FAILURE() << "no window=" << width;
  return {};
}

// Whether any operation of the lifted kernel has a mask or an access whose size changes per
// iteration (a `min()`).
bool guarded(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  for (const auto& r : an.ops) {
    if (!r.op().mask.empty()) return true;
    for (int l : r.loops)
      if (loopnest::uses_loop(r.op(), l))
        for (const loopnest::Access* a : loopnest::reads(r.op()))
          if (loopnest::size_uses_loop(*a, l)) return true;
  }
  return false;
}

TEST(RaggedWindow, FindsTheSameWidthsInEveryStyle) {
  std::vector<std::string> first;
  for (const char* style : {"grid", "tiles", "api"}) {
    SCOPED_TRACE(style);
    std::vector<std::string> keys;
    for (const auto& s : windows_of(kernel_text(style), args_for(8192))) {
      EXPECT_EQ(s.params.at("from"), "768");
      keys.push_back(s.key());
    }
    EXPECT_EQ(keys.size(), 3u);  // 512, 1024, 2048
    if (first.empty()) first = keys;
    EXPECT_EQ(keys, first);
  }
}

TEST(RaggedWindow, AWidthDividingTheAxisDropsTheGuardAndKeepsTheResult) {
  auto args = args_for(8192);
  for (const char* style : {"grid", "tiles", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    ASSERT_TRUE(guarded(text, args));
    for (const char* width : {"512", "2048"}) {
      std::string after = loopnest::apply_site("k.py", text, args, window(text, args, width));
      EXPECT_FALSE(guarded(after, args)) << after;
      EXPECT_EQ(after.find("mask="), std::string::npos) << after;
      EXPECT_LT(rel_error(run("k.py", after, args), run("k.py", text, args)), 1e-6) << after;
    }
  }
}

TEST(RaggedWindow, AWidthNotDividingTheAxisKeepsTheGuardInTheKernelsStyle) {
  auto args = args_for(8000);  // 8000 = 7 * 1024 + 832: the last 1024-column window is cut
  const std::map<std::string, std::string> guard = {
      {"grid", "mask=(1024*t - 8000 + nl.arange(1024)[None, :] < 0)"},
      // (The rows as the author wrote them, `0:half`; the author's `nl.ds` at the new width.)
      {"tiles", "x[0:half, 1024*c:1024*c + min(-1024*c + 8000, 1024)]"},
      {"api", "src=x[0:half, nl.ds(1024*t, min(-1024*t + 8000, 1024))]"}};
  for (const auto& [style, written] : guard) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    std::string after = loopnest::apply_site("k.py", text, args, window(text, args, "1024"));
    EXPECT_TRUE(guarded(after, args)) << after;
    EXPECT_NE(after.find(written), std::string::npos) << after;
    EXPECT_LT(rel_error(run("k.py", after, args), run("k.py", text, args)), 1e-6) << after;
  }
}

// The partitions the loop's engine instructions write (their results' partition dims).
std::set<int64_t> engine_partitions(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  std::set<int64_t> out;
  for (const auto& r : an.ops) {
    const loopnest::Op& op = r.op();
    if (op.engine == loopnest::Engine::Dma || op.engine == loopnest::Engine::None || loopnest::is_declaration(op)) continue;
    if (op.result >= 0) {
      const loopnest::Tensor& t = k.tensor(op.result);
      out.insert(t.shape.at(static_cast<size_t>(t.partition_dim)).constant());
    } else if (op.dst) {
      out.insert(op.dst->tile_shape().at(0).constant());
    }
  }
  return out;
}

TEST(RaggedWindow, FillPartitionsReWindowsAndFillsInOneMove) {
  // 768-column windows on 64 partitions: split in two, each piece would move 1.5 KiB per partition,
  // below the 4 KiB a DMA needs, and the guard refuses the fill. 2048-column windows drop the guard
  // and give 4 KiB pieces: one site, the same in every style.
  auto args = args_for(8192);
  std::string first;
  for (const char* style : {"grid", "tiles", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    std::vector<loopnest::Site> fills;
    for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
      if (s.transform == "fill_partitions") fills.push_back(s);
    ASSERT_EQ(fills.size(), 1u);
    EXPECT_EQ(fills[0].params.at("window"), "2048");
    EXPECT_EQ(fills[0].params.at("fold"), "2");
    if (first.empty()) first = fills[0].key();
    EXPECT_EQ(fills[0].key(), first);
    EXPECT_EQ(engine_partitions(text, args), (std::set<int64_t>{64}));
    std::string after = loopnest::apply_site("k.py", text, args, fills[0]);
    EXPECT_EQ(engine_partitions(after, args), (std::set<int64_t>{128})) << after;
    EXPECT_FALSE(guarded(after, args)) << after;
    EXPECT_LT(rel_error(run("k.py", after, args), run("k.py", text, args)), 1e-6) << after;
  }
}

TEST(RaggedWindow, RefusesAReductionAlongTheWindow) {
  // A row sum per window adds other columns once the windows move.
  std::string text = kernel_text("tiles");
  replace(text, "        nl.store(out[0:half, c0:c0 + w], low)\n",
          "        nl.store(out[0:half, c0:c0 + w], low)\n"
          "        low_sum = nl.sum(low, axis=1)\n");
  EXPECT_TRUE(windows_of(text, args_for(8192)).empty());
}

TEST(RaggedWindow, RefusesATileCarriedAcrossWindows) {
  // Each window adds the previous window's result: the windows no longer commute.
  std::string text = kernel_text("api");
  replace(text, "    for t in range((seq + W - 1) // W):\n",
          "    prev = nl.ndarray((half, W), dtype=nl.float32, buffer=nl.sbuf)\n"
          "    nisa.memset(dst=prev, value=0.0)\n"
          "    for t in range((seq + W - 1) // W):\n");
  replace(text, "        nisa.dma_copy(dst=out[0:half, nl.ds(t * W, w)], src=low[:, 0:w])\n",
          "        nisa.tensor_tensor(dst=prev[:, 0:w], data1=low[:, 0:w], data2=prev[:, 0:w], op=nl.add)\n"
          "        nisa.dma_copy(dst=out[0:half, nl.ds(t * W, w)], src=prev[:, 0:w])\n");
  EXPECT_TRUE(windows_of(text, args_for(8192)).empty());
}

TEST(RaggedWindow, RefusesATileMadeBeforeTheLoop) {
  // A tile loaded once and read by every window holds the first window's columns only.
  std::string text = kernel_text("tiles");
  replace(text, "    for c in nl.affine_range((seq + block - 1) // block):\n",
          "    first = nl.load(cos[:, 0:block])\n"
          "    for c in nl.affine_range((seq + block - 1) // block):\n");
  replace(text, "        low = nisa.tensor_tensor(x0_cos, x1_sin, nl.subtract)\n",
          "        low = nisa.tensor_tensor(x0_cos, first[:, 0:w], nl.subtract)\n");
  EXPECT_TRUE(windows_of(text, args_for(8192)).empty());
}

TEST(RaggedWindow, RefusesAMaskThatIsNotTheGuard) {
  // One store leaves the last column out: a condition of its own, not the window's guard.
  std::string text = kernel_text("grid");
  replace(text, "        nl.store(out[i_p, col], value=low, mask=(col < seq))\n",
          "        nl.store(out[i_p, col], value=low, mask=(col < seq - 1))\n");
  EXPECT_TRUE(windows_of(text, args_for(8192)).empty());
}

}  // namespace
