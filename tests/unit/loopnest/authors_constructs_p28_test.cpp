// Constructs of well-formed kernels by other authors that the lift refused or printed back wrongly
// (session 28 probes, docs/language.md "Session 28"): JAX/Pallas-minded kernels whose grid driver
// is a module helper taking the block body as a function argument, and index maps that return a
// tuple of offsets unpacked inside the loop.
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

TEST(LoopNestAuthors28, AKernelClosureCalledFromAModuleHelperSeesTheKernelsNames) {
  // Before: "cannot lift the name 'x' (not defined in the kernel or its module)": the closure was
  // given the helper's names (GM, GN, body, i, j) instead of the kernel's, where it was defined.
  std::string text = std::string(kImports) +
                     "def _grid(GM, GN, body):\n"
                     "    for i in nl.affine_range(GM):\n"
                     "        for j in nl.affine_range(GN):\n"
                     "            body(i, j)\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 1024), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    BN = 512\n"
                     "\n"
                     "    def body(i, j):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, j * BN:(j + 1) * BN])\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, j * BN:(j + 1) * BN], value=nl.exp(t))\n"
                     "\n"
                     "    _grid(2, 1024 // BN, body)\n"
                     "    return out\n";
  auto args = arrays({{256, 1024}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("inline _grid:"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.load(src=x[128*i + a0[128], 512*j + a1[512]])"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NO_THROW(loopnest::apply_site("k.py", text, args, s)) << s.key();
}

TEST(LoopNestAuthors28, AClosureReachedThroughAHelperDoesNotSeeTheHelpersLocals) {
  // Python's scoping: `scale` inside the closure is the kernel's 2.0, not the helper's local 7.0.
  std::string text = std::string(kImports) +
                     "def _each_row(n, body):\n"
                     "    scale = 7.0\n"
                     "    for i in nl.affine_range(n):\n"
                     "        body(i)\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    scale = 2.0\n"
                     "\n"
                     "    def body(i):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(t, scale))\n"
                     "\n"
                     "    _each_row(2, body)\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{256, 64}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("y=2.0"), std::string::npos) << d;
  EXPECT_EQ(d.find("y=7.0"), std::string::npos) << d;
}

TEST(LoopNestAuthors28, NamesUnpackedFromAnIndexMapAreLocalToTheirLoop) {
  // `xr, xc = x_map(i, k)` binds two offsets in the k loop. Before, the binding carried no names,
  // so hoist_expand moved `nl.load(xT[xr:xr + 128, xc:xc + 128])` out of the j loop as written and
  // the printed kernel read `xr` where nothing binds it ("cannot be printed back").
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(xT, w):\n"
                     "    out = nl.ndarray((256, 1024), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    x_map = lambda i, k: (k * 128, i * 128)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        for j in nl.affine_range(2):\n"
                     "            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
                     "            for k in nl.affine_range(2):\n"
                     "                xr, xc = x_map(i, k)\n"
                     "                a = nl.load(xT[xr:xr + 128, xc:xc + 128])\n"
                     "                b = nl.load(w[k * 128:(k + 1) * 128, j * 512:(j + 1) * 512])\n"
                     "                acc += nl.matmul(a, b, transpose_x=True)\n"
                     "            nl.store(out[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512], value=nl.copy(acc))\n"
                     "    return out\n";
  auto args = arrays({{256, 256}, {256, 1024}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int hoisted = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    if (s.transform != "hoist_expand" || printed.find("a[k, :, :] = nl.load(") == std::string::npos) continue;
    ++hoisted;
    EXPECT_NE(printed.find("a[k, :, :] = nl.load(xT[128*k:128*k + 128, 128*i:128*i + 128])"), std::string::npos) << printed;
  }
  EXPECT_GT(hoisted, 0);
}

TEST(LoopNestAuthors28, ATupleOfSlicesBoundToANameIndexesLikeTheSlicesWritten) {
  // Before: "cannot lift 'x[idx]' as an index" for `idx = blk(i)` returning a tuple of slices.
  std::string text = std::string(kImports) +
                     "def blk(i, bm=128):\n"
                     "    return (slice(i * bm, (i + 1) * bm), slice(0, 64))\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        idx = blk(i)\n"
                     "        t = nl.load(x[idx])\n"
                     "        nl.store(out[idx], value=nl.exp(t))\n"
                     "    return out\n";
  auto args = arrays({{256, 64}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("nl.load(src=x[128*i + a0[128], a1[64]])"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.store(dst=out[128*i + a0[128], a1[64]]"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NO_THROW(loopnest::apply_site("k.py", text, args, s)) << s.key();
}

TEST(LoopNestAuthors28, ALambdasDefaultIsEvaluatedWhereTheLambdaIsMade) {
  // Before: "cannot lift the name 'BM'": the default `bm=BM` was evaluated with no names at all.
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    BM = 128\n"
                     "    row = lambda i, bm=BM: i * bm\n"
                     "    BM = 64\n"
                     "    for i in nl.affine_range(2):\n"
                     "        r0 = row(i)\n"
                     "        t = nl.load(x[r0:r0 + 128, :])\n"
                     "        nl.store(out[r0:r0 + 128, :], value=nl.exp(t))\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{256, 64}}));
  std::string d = loopnest::dump(k);
  // Python binds the default once, when the lambda is made: 128, not the later 64.
  EXPECT_NE(d.find("nl.load(src=x[128*i + a0[128], a1[64]])"), std::string::npos) << d;
}

TEST(LoopNestAuthors28, OpenedHelperLoopsNeverHideAnEnclosingLoopsVariable) {
  // `_loop` runs twice, nested through lambdas: both levels loop over `t`. Before, opening the
  // helpers printed `for t in ...: for t in ...:` and every block read the inner `t` twice: the
  // kernel wrote the diagonal blocks only, and the check of the printed form could not see it
  // (both loops print as `t`). Now the inner one is renamed.
  std::string text = std::string(kImports) +
                     "def _loop(n, f):\n"
                     "    for t in nl.affine_range(n):\n"
                     "        f(t)\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "\n"
                     "    def body(i, j):\n"
                     "        a = nl.load(x[i * 128:(i + 1) * 128, j * 256:(j + 1) * 256])\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, j * 256:(j + 1) * 256], value=a * 3.0 - 1.0)\n"
                     "\n"
                     "    _loop(2, lambda i: _loop(2, lambda j: body(i, j)))\n"
                     "    return out\n";
  auto args = arrays({{256, 512}});
  auto want = loopnest_test::run("k.py", text, args);
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int opened = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (!s.params.count("helpers")) continue;
    ++opened;
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    // The kernel's body loops over `t` once at most: the inner loop renamed (`for t_idx in`), or
    // gone where the site coarsened it to one iteration (dropped as the moves' trip-1 loops are).
    size_t loops_over_t = 0;
    for (size_t at = printed.find("for t in", printed.find("def kernel")); at != std::string::npos;
         at = printed.find("for t in", at + 1))
      ++loops_over_t;
    EXPECT_LE(loops_over_t, 1u) << printed;
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run("k.py", printed, args), want), 1e-6) << s.key() << "\n" << printed;
  }
  EXPECT_GT(opened, 0);
}

TEST(LoopNestAuthors28, AFoldedTensorScalarRunsOnTheEngineItsOperatorsNeed) {
  // `t ** 2 * 0.25` folds into one tensor_scalar(power, multiply); power runs on GpSimd only.
  // Before, the fold kept the multiply's Vector Engine and the site was refused ("another
  // loop-nest form": the printed kernel lifts on GpSimd).
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    nl.store(out, value=t ** 2 * 0.25)\n"
                     "    return out\n";
  auto args = arrays({{128, 64}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int folds = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "fold_scalar_ops" || s.params.at("ops") != "power+multiply") continue;
    ++folds;
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    loopnest::Kernel again = loopnest::lift_source("k.py", printed, args);
    EXPECT_NE(loopnest::dump(again).find("operand1=0.25) @pool"), std::string::npos) << loopnest::dump(again);
  }
  EXPECT_EQ(folds, 1);
}

TEST(LoopNestAuthors28, PositionalOnlyBodiesAndAProductOfTheLeadingDimsLift) {
  // Before: the parser refused `/` in a helper's parameters, and `rows *= s` over the leading dims
  // of a 3-D shape was "this augmented assignment of a Python value".
  std::string text = std::string(kImports) +
                     "def _body(i, /, x, out, *, scale):\n"
                     "    t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "    nl.store(out[i * 128:(i + 1) * 128, :], value=t * scale)\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    *lead, D = x.shape\n"
                     "    rows = 1\n"
                     "    for s in lead:\n"
                     "        rows *= s\n"
                     "    x2 = x.reshape((rows, D))\n"
                     "    out = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(rows // 128):\n"
                     "        _body(i, x2, out, scale=0.5)\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{2, 128, 64}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("for i in affine_range(2):"), std::string::npos) << d;
  EXPECT_NE(d.find("y=0.5"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
}

TEST(LoopNestAuthors28, ATransposeOfBf16RowsOnTheTensorEngineKeepsTheirDtype) {
  // nl.load_transpose2d of a bf16 block: transpose_on_pe loads the rows and transposes them with
  // nisa.nc_transpose, whose result (no dtype=) is bf16 as its data. Before, the form typed the PSUM
  // result float32, the printed kernel lifted bf16, and the site was refused.
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x, w):\n"
                     "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
                     "    for k in nl.affine_range(2):\n"
                     "        xt = nl.load_transpose2d(x[:, k * 128:(k + 1) * 128])\n"
                     "        wt = nl.load(w[k * 128:(k + 1) * 128, :])\n"
                     "        acc += nl.matmul(xt, wt, transpose_x=True)\n"
                     "    nl.store(out, value=acc)\n"
                     "    return out\n";
  auto args = arrays({{128, 256}, {256, 512}});
  for (auto& a : args) a.dtype = "bfloat16";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int moves = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "transpose_on_pe") continue;
    ++moves;
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    EXPECT_NE(printed.find("nisa.nc_transpose("), std::string::npos) << printed;
  }
  EXPECT_GT(moves, 0);
}

}  // namespace
