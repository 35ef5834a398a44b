// Constructs of well-formed kernels by other authors that the lift refused or a move printed
// wrongly (session 25 probes, docs/language.md "Session 25"): `~t` of a tile, a Python list of
// outputs (or functions) indexed by a `range` loop's variable, a Python number walked by `+=` in the
// loop body that binds it (a host while loop over column offsets inside a tile loop), a dict display
// of operations' results, a fold of a comparison into an instruction whose data is float32, and the
// newer API's transposing DMA (`dma_copy(dst=, src=view.permute((1, 0)))`) that transpose_on_pe
// took only in the legacy spelling.
#include <gtest/gtest.h>

#include <optional>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

TEST(LoopNestAuthors25, InvertOfATileIsNlInvert) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    mask = ~0xF0\n"
                     "    nl.store(out, value=nl.bitwise_and(~t, mask))\n"
                     "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{128, 64}});
  args[0].dtype = "int32";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("nl.invert(x=t)"), std::string::npos) << d;
  EXPECT_NE(d.find("y=-241"), std::string::npos) << d;  // ~0xF0 of a Python int
  EXPECT_EQ(loopnest::emit(k), text);
}

TEST(LoopNestAuthors25, AListOfOutputsIndexedByARangeLoopLiftsAsItsCopies) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    outs = [nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm) for _ in range(2)]\n"
                     "    fns = [nl.exp, nl.tanh]\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        for k in range(2):\n"
                     "            nl.store(outs[k][i * 128:(i + 1) * 128, :], value=fns[k](t))\n"
                     "    return tuple(outs)\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{256, 64}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("for i in affine_range(2):"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.exp(x=t)"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.tanh(x=t)"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  // A list whose items are a progression of the index stays one loop of the form.
  std::string progression = std::string(kHead) +
                            "def kernel(x):\n"
                            "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                            "    starts = [0, 128]\n"
                            "    for k in nl.affine_range(2):\n"
                            "        t = nl.load(x[starts[k]:starts[k] + 128, :])\n"
                            "        nl.store(out[starts[k]:starts[k] + 128, :], value=t)\n"
                            "    return out\n";
  d = loopnest::dump(loopnest::lift_source("k.py", progression, arrays({{256, 64}})));
  EXPECT_NE(d.find("for k in affine_range(2):"), std::string::npos) << d;
  EXPECT_EQ(d.find("inline for:"), std::string::npos) << d;
}

TEST(LoopNestAuthors25, ANumberWalkedInTheLoopBodyThatBindsItLifts) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 600), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        off = 0\n"
                     "        while off < 600:\n"
                     "            w = min(256, 600 - off)\n"
                     "            t = nl.load(x[i * 128:(i + 1) * 128, off:off + w])\n"
                     "            nl.store(out[i * 128:(i + 1) * 128, off:off + w], value=nl.exp(t))\n"
                     "            off += w\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{256, 600}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("for i in affine_range(2):"), std::string::npos) << d;
  EXPECT_NE(d.find("512 + a1[88]"), std::string::npos) << d;  // the last, ragged, column block
  EXPECT_EQ(loopnest::emit(k), text);
  // Bound before the loop, or in another loop's body, the number is carried from one iteration to
  // the next: a counter bumped by 128 per iteration, the loop lifts as one loop with the offset
  // 128*i (lift_counter.cpp, session 44; it lifted as its copies, one value each, before).
  for (const char* before : {"    off = 0\n", "    for j in nl.affine_range(1):\n        off = 0\n"}) {
    std::string carried = std::string(kHead) +
                          "def kernel(x):\n"
                          "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n" +
                          before +
                          "    for i in nl.affine_range(2):\n"
                          "        nl.store(out[off:off + 128, :], value=nl.load(x[i * 128:(i + 1) * 128, :]))\n"
                          "        off += 128\n"
                          "    return out\n";
    d = loopnest::dump(loopnest::lift_source("k.py", carried, arrays({{256, 64}})));
    EXPECT_NE(d.find("for i in affine_range(2):"), std::string::npos) << d;
    EXPECT_NE(d.find("nl.store(dst=out[128*i + a0[128], a1[64]]"), std::string::npos) << d;
    EXPECT_EQ(d.find("inline for:"), std::string::npos) << d;
  }
}

TEST(LoopNestAuthors25, ADictDisplayOfResultsLiftsFrozen) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    hi = nl.ndarray((256, 1), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        st = {\"max\": nl.max(t, axis=1, keepdims=True), \"min\": nl.min(t, axis=1, keepdims=True)}\n"
                     "        nl.store(hi[i * 128:(i + 1) * 128, :], value=nl.subtract(st[\"max\"], st[\"min\"]))\n"
                     "    return hi\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{256, 64}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("nl.subtract(x=st['max'], y=st['min'])"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  // Regenerated, the display is still copied as written (the form has no spelling for it) and
  // its reader reads the items by their text.
  std::string again = loopnest::emit_checked(k, arrays({{256, 64}}), {.regenerate = true});
  EXPECT_NE(again.find("st = {\"max\": nl.max(t, axis=1, keepdims=True)"), std::string::npos) << again;
  EXPECT_NE(again.find("st['max']"), std::string::npos) << again;
  // The display is printed as written: no move rewrites the operations inside it.
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NE(s.line, 10) << s.key();
}

TEST(LoopNestAuthors25, AFoldOfAComparisonSaysItsBoolResult) {
  std::string text = std::string(kHead) +
                     "def kernel(x, y):\n"
                     "    out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                     "    a = nl.load(x)\n"
                     "    b = nl.load(y)\n"
                     "    both = nl.logical_and(nl.greater(a, -1.5), nl.less(b, 1.5))\n"
                     "    nl.store(out, value=nl.copy(nl.all(both, axis=1, keepdims=True), dtype=nl.float32))\n"
                     "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{128, 8}, {128, 8}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int folds = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "fold_scalar_tensor_tensor" && s.transform != "fold_scalar_ops") continue;
    ++folds;
    // Printed back, the kernel lifts to the form the move made (apply_site checks it) and says
    // the instruction's bool result: dtype=nl.bool_, as the language core runs it.
    std::string printed = loopnest::apply_site("k.py", text, args, s);
    EXPECT_NE(printed.find("dtype=nl.bool_"), std::string::npos) << printed;
  }
  EXPECT_EQ(folds, 2);
}

TEST(LoopNestAuthors25, TransposeOnPeTakesTheNewerApisTransposingDmaCopy) {
  const std::string newer =
      "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n\n@nki.jit\n"
      "def kernel(x, w):\n"
      "    out = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    w_sb = nl.ndarray((96, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    nisa.dma_copy(dst=w_sb, src=w)\n"
      "    for b in range(2):\n"
      "        xT = nl.ndarray((96, 128), dtype=nl.float32, buffer=nl.sbuf)\n"
      "        nisa.dma_copy(dst=xT, src=x[b * 128:(b + 1) * 128, :].permute((1, 0)))\n"
      "        acc = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)\n"
      "        nisa.nc_matmul(dst=acc, stationary=xT, moving=w_sb)\n"
      "        y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
      "        nisa.tensor_copy(dst=y, src=acc)\n"
      "        nisa.dma_copy(dst=out[b * 128:(b + 1) * 128, :], src=y)\n"
      "    return out\n";
  const std::string legacy = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
                             "import neuronxcc.nki.isa as nisa\n\n\n@nki.jit\n"
                             "def kernel(x, w):\n"
                             "    out = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                             "    w_sb = nl.load(w)\n"
                             "    i_k = nl.arange(96)[:, None]\n"
                             "    i_r = nl.arange(128)[None, :]\n"
                             "    for b in range(2):\n"
                             "        xT = nl.load(x[b * 128 + i_r, i_k])\n"
                             "        acc = nisa.nc_matmul(xT, w_sb)\n"
                             "        nl.store(out[b * 128:(b + 1) * 128, :], value=nl.copy(acc))\n"
                             "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{256, 96}, {96, 64}});
  auto transpose_site = [&](const std::string& text) -> std::optional<loopnest::Site> {
    for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
      if (s.transform == "transpose_on_pe") return s;
    return std::nullopt;
  };
  ASSERT_TRUE(transpose_site(legacy));
  auto site = transpose_site(newer);
  ASSERT_TRUE(site);  // the same site in both dialects
  std::string printed = loopnest::apply_site("k.py", newer, args, *site);
  // Printed in the newer API: the rows loaded plainly into a declared tile, transposed on the PE
  // into a declared PSUM tile, copied into the author's tile.
  EXPECT_NE(printed.find("nisa.dma_copy(dst=xT_rows[...], src=x[128*b:128*b + 128, :])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("nisa.nc_transpose(dst=xT_ps[...], data=xT_rows)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("nisa.tensor_copy(dst=xT[...], src=xT_ps)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("permute"), std::string::npos) << printed;
}

}  // namespace
