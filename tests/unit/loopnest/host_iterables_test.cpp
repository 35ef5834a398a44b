// Host Python around tile work the lift once refused (session 37, issue 13): map / filter / iter /
// next (lift_iterables.cpp), `zip(it, it)` pairing, dicts and sets keyed by tuples, len() and
// calls of an instance (__len__ / __call__), the name Ellipsis (also inside a tuple index), float
// comparisons, and `while True:` with a break its host condition decides around tile work. The
// kernel's trace runs all of it (nki-language.md 3.1); the form holds what that trace does.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n";

std::string lift_or_error(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  try {
    return loopnest::dump(loopnest::lift_source("k.py", text, args));
  } catch (const loopnest::LiftError& e) {
    return e.render();
  }
}

TEST(HostIterables, MapFilterIterNextAndAPairingZipLiftAsTheTraceRunsThem) {
  std::string path = source_dir() + "/tests/kernels/corpus/p37_host_iterables.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, arrays({{256, 512}}));
  std::string d = loopnest::dump(form);
  // map of a lambda: one load per column block (WIDTHS[(256, 512)] = 128, a tuple key).
  EXPECT_NE(d.find("cols[3] = nl.load(src=x[128*i + a0[128], 384 + a1[128]]) @dma\n"), std::string::npos) << d;
  // zip(it, it) pairs blocks 0 and 1, then 2 and 3; the gains filter(...) kept are 1.5 and 0.5,
  // applied by Gains.__call__ with next(order) = 0 (len(gains) = 2 by __len__).
  EXPECT_NE(d.find("%1 = nl.multiply(x=cols[0], y=1.5) @dve\n"), std::string::npos) << d;
  EXPECT_NE(d.find("%2 = nl.multiply(x=cols[1], y=0.5) @dve\n"), std::string::npos) << d;
  EXPECT_NE(d.find("%3 = nl.multiply(x=cols[2], y=1.5) @dve\n"), std::string::npos) << d;
  EXPECT_NE(d.find("%4 = nl.multiply(x=cols[3], y=0.5) @dve\n"), std::string::npos) << d;
  // d[Ellipsis] is the whole tile.
  EXPECT_NE(d.find("nl.store(dst=out[128*i + a0[128], 128 + a1[128]], value=d#2) @dma\n"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(form), text);
}

TEST(HostIterables, AnIteratorIsAValueNextAdvancesAndAForLoopExhausts) {
  std::string text = std::string(kHead) +
                     "\n\n@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    it = iter([1.0, 2.0, 3.0])\n"
                     "    a = next(it)\n"
                     "    b = next(it)\n"
                     "    for c in it:\n"
                     "        pass\n"
                     "    z = next(it, 7.0)\n"
                     "    first = next(v for v in (5.0, 6.0) if v > 5.5)\n"
                     "    t = nl.load(x)\n"
                     "    nl.store(out, value=nl.multiply(nl.add(t, a * 1000 + b * 100 + c * 10 + z), first))\n"
                     "    return out\n";
  std::string d = lift_or_error(text, arrays({{128, 64}}));
  EXPECT_NE(d.find("y=1237.0"), std::string::npos) << d;  // a 1, b 2, c 3, z the default 7
  EXPECT_NE(d.find("y=6.0"), std::string::npos) << d;
}

TEST(HostIterables, EllipsisByNameAndInsideATupleIndexIsTheFullSlices) {
  std::string text = std::string(kHead) +
                     "\n\n@nki.jit\n"
                     "def kernel(x):\n"
                     "    B, P, N = x.shape\n"
                     "    out = nl.ndarray((B, P, N // 2), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for b in nl.affine_range(B):\n"
                     "        t = nl.load(x[b, Ellipsis])\n"
                     "        left = (Ellipsis, slice(0, N // 2))\n"
                     "        nl.store(out[(b, Ellipsis)], value=nl.add(t[left], t[..., N // 2:]))\n"
                     "    return out\n";
  std::string d = lift_or_error(text, arrays({{2, 128, 64}}));
  EXPECT_NE(d.find("nl.add(x=t[a0[128], a1[32]], y=t[a0[128], 32 + a1[32]])"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.store(dst=out[b, a0[128], a1[32]]"), std::string::npos) << d;
}

TEST(HostIterables, AWhileTrueWithAHostBreakAroundTileWorkLiftsAsItsCopies) {
  std::string text = std::string(kHead) +
                     "\n\n@nki.jit\n"
                     "def kernel(x):\n"
                     "    M, N = x.shape\n"
                     "    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    row = 0\n"
                     "    while True:\n"
                     "        if row * 128 >= M:\n"
                     "            break\n"
                     "        if row == 1:\n"
                     "            row += 1\n"
                     "            continue\n"
                     "        t = nl.load(x[row * 128:(row + 1) * 128, :])\n"
                     "        nl.store(out[row * 128:(row + 1) * 128, :], value=nl.exp(t))\n"
                     "        row += 1\n"
                     "    return out\n";
  std::string d = lift_or_error(text, arrays({{384, 64}}));
  EXPECT_NE(d.find("inline while:\n"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.load(src=x[a0[128], a1[64]])"), std::string::npos) << d;         // row 0
  EXPECT_EQ(d.find("nl.load(src=x[128 + a0[128], a1[64]])"), std::string::npos) << d;   // row 1 skipped
  EXPECT_NE(d.find("nl.load(src=x[256 + a0[128], a1[64]])"), std::string::npos) << d;   // row 2
  // A break decided by a tile's values is not known at trace time: the host refusal stands.
  std::string device = std::string(kHead) +
                       "\n\n@nki.jit\n"
                       "def kernel(x):\n"
                       "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                       "    while True:\n"
                       "        t = nl.load(x)\n"
                       "        if t:\n"
                       "            break\n"
                       "    nl.store(out, value=t)\n"
                       "    return out\n";
  std::string refused = lift_or_error(device, arrays({{128, 64}}));
  EXPECT_NE(refused.find("k.py:8:5: error: cannot lift a while loop with break / continue"), std::string::npos) << refused;
}

TEST(HostIterables, AModuleNameWhoseValueDidNotLiftSaysSoAndWhy) {
  // Float dict keys are not held by the lift: the kernel's use of the table names the reason,
  // not "not defined in the kernel or its module".
  std::string text = std::string(kHead) +
                     "\nGAIN = {0.5: 2.0}\n\n\n@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    nl.store(out, value=nl.multiply(nl.load(x), GAIN[0.5]))\n"
                     "    return out\n";
  std::string refused = lift_or_error(text, arrays({{128, 64}}));
  EXPECT_NE(refused.find("cannot lift the name 'GAIN' (its module-level value did not lift: the dict key '0.5'"),
            std::string::npos) << refused;
  EXPECT_NE(refused.find("at line 4)"), std::string::npos) << refused;
}

}  // namespace
