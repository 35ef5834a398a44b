// Constructs of kernels an assistant writes from the NKI documentation (the high-level nl API,
// operators on tiles, shape checks) that the lift refused or printed wrongly (session 30 probes,
// docs/language.md "Session 30").
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kImports = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n";

// Every site applies, and the changed kernel computes what the kernel computes.
void expect_sites_keep_results(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                               const loopnest::Kernel& k) {
  auto want = loopnest_test::run("k.py", text, args);
  for (const auto& s : loopnest::find_sites(k)) {
    std::string changed = loopnest::apply_site("k.py", text, args, s);
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run("k.py", changed, args), want), 1e-5) << s.key();
  }
}

TEST(LoopNestAuthors30, AugmentedOperatorsOtherThanPlusUpdateATileInPlace) {
  // `t -= mu; t *= 2.0; t /= d` update the tile's storage as `t[...] = t - mu` does
  // (NkiTensorObj::inplace_op). Before: "cannot lift a '-=' accumulation into a tile (only += is
  // lifted)".
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        mu = nl.mean(t, axis=1, keepdims=True)\n"
                     "        t -= mu\n"
                     "        t *= 2.0\n"
                     "        d = nl.add(nl.max(nl.abs(t), axis=1, keepdims=True), 1.0)\n"
                     "        t /= d\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=t)\n"
                     "    return out\n";
  auto args = arrays({{256, 128}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("t = nl.subtract(x=t, y=mu) @dve"), std::string::npos) << d;
  EXPECT_NE(d.find("t = nl.multiply(x=t, y=2.0) @dve"), std::string::npos) << d;
  EXPECT_NE(d.find("t = nl.divide(x=t, y=d) @dve"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  EXPECT_FALSE(loopnest::find_sites(k).empty());
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, AWrapperDispatchingOnTheShapeLiftsAsTheKernelItCalls) {
  // `if x.shape[0] <= 128: return _small(x)` then `return _tiled(x)`: the host `if` is known when
  // lifting, so the form is the called kernel's body as for a wrapper making one call. Before: the
  // wrapper's form (an empty `if 1 == 0:` and one closed helper node), with no site.
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def _small(x):\n"
                     "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    nl.store(out, value=nl.exp(nl.load(x)))\n"
                     "    return out\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def _tiled(x):\n"
                     "    out = nl.ndarray((384, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(3):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        y = nl.exp(t)\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n"
                     "    return out\n"
                     "\n\n"
                     "def kernel(x):\n"
                     "    if x.shape[0] <= 128:\n"
                     "        return _small(x)\n"
                     "    return _tiled(x)\n";
  auto args = arrays({{384, 128}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  EXPECT_EQ(k.name, "_tiled");
  std::string d = loopnest::dump(k);
  EXPECT_EQ(d.find("inline"), std::string::npos) << d;
  EXPECT_NE(d.find("for i in affine_range(3):"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  EXPECT_FALSE(loopnest::find_sites(k).empty());
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, AccumulatingIntoAnItemOfAListOfPsumTilesLifts) {
  // One PSUM accumulator per 512-column block, kept in a list: `accs[n] += nl.matmul(...)`. Before:
  // "cannot lift the accumulation into 'accs[n]'" (only a tile's subscript was an accumulation
  // target), and the kernel was left to the source-level rewrites.
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(a_t, b):\n"
                     "    out = nl.ndarray((256, 1024), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    for m in nl.affine_range(2):\n"
                     "        accs = [nl.zeros((128, 512), nl.float32, buffer=nl.psum) for _ in range(2)]\n"
                     "        for k in nl.affine_range(2):\n"
                     "            lhs = nl.load(a_t[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])\n"
                     "            for n in range(2):\n"
                     "                rhs = nl.load(b[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])\n"
                     "                accs[n] += nl.matmul(lhs, rhs, transpose_x=True)\n"
                     "        for n in range(2):\n"
                     "            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=nl.copy(accs[n]))\n"
                     "    return out\n";
  auto args = arrays({{256, 256}, {256, 1024}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("accs[n, a0[128], a1[512]] += nl.matmul(x=lhs, y=rhs, transpose_x=True) @pe"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  EXPECT_FALSE(loopnest::find_sites(k).empty());
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, AnUpdatedListItemPrintsAsAWriteIntoTheItem) {
  // `accs[1] -= nl.multiply(a, b)` whose operand a move renames is printed from the form: as
  // `accs[1][...] = nl.subtract(...)`, not `accs[1] = ...`, which rebinds the list's item (the
  // printed kernel lifted to another form, and in_place / engine_assign were refused).
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x, y):\n"
                     "    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    accs = [nl.zeros((128, 64), dtype=nl.float32) for _ in range(2)]\n"
                     "    for i in nl.sequential_range(4):\n"
                     "        a = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        b = nl.load(y[i * 128:(i + 1) * 128, :])\n"
                     "        accs[0] -= a\n"
                     "        accs[1] -= nl.multiply(a, b)\n"
                     "    nl.store(out[:, 0:64], value=accs[0])\n"
                     "    nl.store(out[:, 64:128], value=accs[1])\n"
                     "    return out\n";
  auto args = arrays({{512, 64}, {512, 64}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  EXPECT_NE(loopnest::dump(k).find("buffer carried by i"), std::string::npos);
  auto sites = loopnest::find_sites(k);
  EXPECT_FALSE(sites.empty());
  bool printed = false;
  for (const auto& s : sites) {
    std::string changed = loopnest::apply_site("k.py", text, args, s);
    printed = printed || changed.find("accs[1][...] = nl.subtract(") != std::string::npos;
  }
  EXPECT_TRUE(printed);
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, DebugPrintsNamingTheLoopVariableLift) {
  // `print(f"tile {i}")` and `nl.device_print(f"tile {i} max", m)` in a loop: debug output whose
  // text names the loop variable. Before: "cannot lift the f-string field 'i' (not a host value)".
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        print(f\"processing tile {i}\")\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        nl.device_print(f\"tile {i} max\", nl.max(t, axis=1, keepdims=True))\n"
                     "        y = nl.exp(t)\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n"
                     "    return out\n";
  auto args = arrays({{256, 128}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("nl.device_print(prefix=f'tile {i} max'"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  EXPECT_FALSE(loopnest::find_sites(k).empty());
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, NoScalarTensorTensorFoldReadsTwoPsumTiles) {
  // `nl.add(main, nl.multiply(low, alpha))` with main a PSUM accumulator and low a matmul result in
  // PSUM: folded into one scalar_tensor_tensor it reads both from PSUM, which the instruction
  // refuses ("at most one input ... may be in PSUM"). The fold was offered and its kernel failed.
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x_t, w, a, b):\n"
                     "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    b_sb = nl.load(b)\n"
                     "    xt = nl.load(x_t)\n"
                     "    main = nl.matmul(xt, nl.load(w), transpose_x=True)\n"
                     "    lowT = nl.matmul(nl.load(a), xt, transpose_x=True)\n"
                     "    low = nl.matmul(nl.copy(lowT), b_sb, transpose_x=True)\n"
                     "    nl.store(out, value=nl.add(main, nl.multiply(low, 0.5)))\n"
                     "    return out\n";
  auto args = arrays({{128, 128}, {128, 512}, {128, 16}, {16, 512}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NE(s.transform, "fold_scalar_tensor_tensor") << s.key();
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, ALoopCarryingARecurrenceIsNotCoarsened) {
  // `h = a[:, t] * h + b[:, t]` over the columns: h is written by every iteration and read by the
  // next. tile_size read it as a loop-invariant [128, 1] operand broadcast along the growing axis
  // and offered coarsening t by 2 and 16 (the printed kernel then failed to lift).
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(a, b):\n"
                     "    out = nl.ndarray((128, 16), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    at = nl.load(a)\n"
                     "    bt = nl.load(b)\n"
                     "    hs = nl.ndarray((128, 16), dtype=nl.float32, buffer=nl.sbuf)\n"
                     "    h = nl.zeros((128, 1), dtype=nl.float32)\n"
                     "    for t in range(16):\n"
                     "        h = nl.add(nl.multiply(at[:, t:t + 1], h), bt[:, t:t + 1])\n"
                     "        hs[:, t:t + 1] = h\n"
                     "    nl.store(out, value=hs)\n"
                     "    return out\n";
  auto args = arrays({{128, 16}, {128, 16}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NE(s.transform, "tile_size") << s.key();
  expect_sites_keep_results(text, args, k);
}

TEST(LoopNestAuthors30, ATransposeNestedInItsCopyIsHoistedAsTheTwoStatementChain) {
  // `x_t = nl.copy(nl.transpose(x_tile), dtype=nl.float32)` inside the column loop: the same chain as
  // `tp = nl.transpose(x_tile); x_t = nl.copy(tp)`, which hoist_transpose moves out of `for n`
  // with its load. Written as one statement it was offered only the load's hoist, leaving the
  // transpose and its PSUM copy redone per column block.
  auto kernel = [](const std::string& transpose) {
    return std::string(kImports) +
           "@nki.jit\n"
           "def kernel(x, w):\n"
           "    out = nl.ndarray((256, 1024), dtype=nl.float32, buffer=nl.shared_hbm)\n"
           "    for m in nl.affine_range(2):\n"
           "        for n in nl.affine_range(2):\n"
           "            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
           "            for k in nl.affine_range(2):\n"
           "                x_tile = nl.load(x[m * 128:(m + 1) * 128, k * 128:(k + 1) * 128])\n" +
           transpose +
           "                w_tile = nl.load(w[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])\n"
           "                acc += nl.matmul(x_t, w_tile, transpose_x=True)\n"
           "            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=nl.copy(acc))\n"
           "    return out\n";
  };
  auto args = arrays({{256, 256}, {256, 1024}});
  auto hoists = [&](const std::string& text) {
    loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
    std::vector<std::string> keys;
    for (const auto& s : loopnest::find_sites(k))
      if (s.transform == "hoist_transpose") keys.push_back(s.key());
    return keys;
  };
  std::string nested = kernel("                x_t = nl.copy(nl.transpose(x_tile), dtype=nl.float32)\n");
  std::vector<std::string> keys = hoists(nested);
  ASSERT_EQ(keys.size(), 1u);
  loopnest::Kernel k = loopnest::lift_source("k.py", nested, args);
  EXPECT_EQ(loopnest::emit(k), nested);
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "hoist_transpose") continue;
    std::string changed = loopnest::apply_site("k.py", nested, args, s);
    EXPECT_EQ(changed.find("nl.copy(nl.transpose"), std::string::npos) << changed;
  }
  expect_sites_keep_results(nested, args, k);
  // The two-statement spelling keeps its site.
  EXPECT_EQ(hoists(kernel("                tp = nl.transpose(x_tile)\n                x_t = nl.copy(tp)\n")).size(), 1u);
}

}  // namespace
