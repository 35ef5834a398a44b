// Constructs of well-formed kernels by other authors that the lift refused or a move printed
// wrongly (session 26 probes, docs/language.md "Session 26"): a move on an opened helper that kept
// the helper's loop header as written (its bound names the helper's locals), functools.reduce of an
// NKI API over a list of tiles, and an instruction label spelled from a loop variable.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kImports = "import functools\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\n"
                       "import neuronxcc.nki.language as nl\n\n\n";

TEST(LoopNestAuthors26, AMoveOnAnOpenedHelperPrintsItsLoopHeadersFromTheForm) {
  std::string text = std::string(kImports) +
                     "def _tiles(src, dst, height=128, width=128):\n"
                     "    rows, cols = src.shape\n"
                     "    for r in nl.affine_range(rows // height):\n"
                     "        for c in nl.affine_range(cols // width):\n"
                     "            t = nl.load(src[r * height:(r + 1) * height, c * width:(c + 1) * width])\n"
                     "            nl.store(dst[r * height:(r + 1) * height, c * width:(c + 1) * width], value=nl.exp(t))\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x, tile_f=256):\n"
                     "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    _tiles(x, out, width=tile_f)\n"
                     "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{256, 512}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int interchanges = 0, opened = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.params.count("helpers") == 0) continue;
    ++opened;
    interchanges += s.transform == "interchange_loops";
    // Printed back, the kernel lifts to the form the move made (apply_site checks it): before,
    // the swapped headers were the helper's text, `cols // width` in the kernel's body.
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    std::string body = printed.substr(printed.find("def kernel"));
    EXPECT_EQ(body.find("// width"), std::string::npos) << s.key() << "\n" << printed;
    EXPECT_EQ(body.find("// height"), std::string::npos) << s.key() << "\n" << printed;
  }
  EXPECT_GT(opened, 0);
  EXPECT_EQ(interchanges, 1);
}

TEST(LoopNestAuthors26, AMoveOnAnOpenedClosurePrintsItsLoopHeadersFromTheForm) {
  // A def nested in the kernel: its loop bound names the closure's parameters (`hi - lo`).
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    n, d = x.shape\n"
                     "    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "\n"
                     "    def band(lo, hi):\n"
                     "        for r in nl.affine_range(n // 128):\n"
                     "            for c in nl.affine_range((hi - lo) // 64):\n"
                     "                t = nl.load(x[r * 128:(r + 1) * 128, lo + c * 64:lo + (c + 1) * 64])\n"
                     "                nl.store(out[r * 128:(r + 1) * 128, lo + c * 64:lo + (c + 1) * 64], value=nl.exp(t))\n"
                     "\n"
                     "    band(0, 128)\n"
                     "    band(128, d)\n"
                     "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{256, 256}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int interchanges = 0;
  for (const auto& s : loopnest::find_sites(k)) {
    if (s.transform != "interchange_loops" || s.params.count("helpers") == 0) continue;
    ++interchanges;
    std::string printed;
    ASSERT_NO_THROW(printed = loopnest::apply_site("k.py", text, args, s)) << s.key();
    EXPECT_EQ(printed.rfind("(hi - lo) // 64"), printed.find("(hi - lo) // 64")) << printed;  // the def's own text only
  }
  EXPECT_EQ(interchanges, 2);  // one per call
}

TEST(LoopNestAuthors26, FunctoolsReduceOfAnApiLiftsAsTheChainTheTraceRuns) {
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    tiles = [nl.load(x[s]) for s in range(3)]\n"
                     "    peak = functools.reduce(nl.maximum, tiles)\n"
                     "    total = functools.reduce(nl.add, tiles, nl.zeros((128, 64), dtype=nl.float32))\n"
                     "    nl.store(out, value=nl.subtract(peak, total))\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{3, 128, 64}}));
  std::string d = loopnest::dump(k);
  size_t maxima = 0, sums = 0;
  for (size_t at = d.find("nl.maximum("); at != std::string::npos; at = d.find("nl.maximum(", at + 1)) ++maxima;
  for (size_t at = d.find("nl.add("); at != std::string::npos; at = d.find("nl.add(", at + 1)) ++sums;
  EXPECT_EQ(maxima, 2u) << d;  // three tiles: two applications
  EXPECT_EQ(sums, 3u) << d;    // an initial value: one application per tile
  EXPECT_EQ(loopnest::emit(k), text);
  // A function that is neither the kernel's nor an API of two operands is still refused by name.
  std::string other = text;
  other.replace(other.find("functools.reduce(nl.maximum"), 27, "functools.reduce(nl.exp");
  EXPECT_THROW(loopnest::lift_source("k.py", other, arrays({{3, 128, 64}})), loopnest::LiftError);
}

TEST(LoopNestAuthors26, AnInstructionLabelSpelledFromALoopVariableIsLeftOut) {
  std::string text = std::string(kImports) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        e = nisa.activation(op=nl.exp, data=t, scale=0.5, name=f\"row{i}_exp\")\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=e)\n"
                     "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{256, 64}});
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("for i in affine_range(2):"), std::string::npos) << d;
  EXPECT_EQ(d.find("row{i}"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);  // printed back as written, the label kept
  for (const auto& s : loopnest::find_sites(k)) EXPECT_NO_THROW(loopnest::apply_site("k.py", text, args, s)) << s.key();
}

}  // namespace
