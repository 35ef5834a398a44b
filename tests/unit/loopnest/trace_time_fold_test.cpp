// Trace-time host expressions the lifter does not model itself are computed by the language core
// (src/loopnest/lift_fold.cpp); an expression reading a tile's values, a loop-dependent integer or
// a random draw is never folded, and its refusal stands.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;

const char* const kHead =
    "import math\nimport numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
    "@nki.jit\n";

std::string kernel_with(const std::string& host_lines, const std::string& trip) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    R, C = x.shape\n" +
         host_lines +
         "    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for i in nl.affine_range(" + trip + "):\n"
         "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
         "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.minimum(t, big))\n"
         "    return out\n";
}

TEST(LoopNestLift, TraceTimeHostValuesAreFoldedByTheLanguageCore) {
  std::string text = kernel_with(
      "    assert all(d % 128 == 0 for d in x.shape) and not any(d == 0 for d in x.shape)\n"
      "    assert isinstance(C, int) and bool(C) and str(C).isdigit() and pow(2, 9) == C\n"
      "    n = int(math.log2(R)) + C.bit_length() - 10 + int(np.prod(x.shape)) // (R * C)\n"
      "    big = np.finfo(np.float32).max if np.iinfo(np.int32).max > R * C else 0.0\n",
      "n // 4");
  // log2(256) + (512).bit_length() - 10 + 1 = 9: two row tiles.
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}})));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
}

TEST(LoopNestLift, AFoldNeverReadsATilesValuesALoopIndexOrARandomDraw) {
  auto refusal = [](const std::string& host_lines, const std::string& trip) {
    try {
      loopnest::lift_source("k.py", kernel_with(host_lines, trip), arrays({{256, 512}}));
    } catch (const loopnest::LiftError& e) {
      return e.render();
    }
    return std::string("lifted");
  };
  // A random draw differs from run to run: never a constant of the form.
  EXPECT_NE(refusal("    big = 1.0\n", "int(np.random.randint(1, 2)) + 1").find("cannot lift"), std::string::npos);
  // A tile's values are not known at trace time.
  std::string tile_truth = refusal("    big = 1.0\n    u = nl.load(x[0:128, :])\n    big = float(bool(u))\n", "2");
  EXPECT_NE(tile_truth.find("cannot lift"), std::string::npos) << tile_truth;
  EXPECT_NE(tile_truth.find("k.py:"), std::string::npos) << tile_truth;
  // Its shape is: a tile stands in for the fold as its shape and dtype.
  EXPECT_EQ(refusal("    big = 1.0 if all(s > 0 for s in x.shape) and x.dtype == np.float32 else 2.0\n", "2"), "lifted");
  // Also named bare, as an item of the tuple a comprehension walks (an outside author's adamw:
  // `assert all(t.shape == (M, N) for t in (grad, m, v))` stopped its lift at `all`); the guard
  // fails the fold on a bare tile's comparison, truth or text.
  EXPECT_EQ(refusal("    assert all(t.shape == (R, C) for t in (x, x)), 'one shape'\n    big = 1.0\n", "2"), "lifted");
  for (const std::string use : {"x == x", "bool(x)", "str(x) == 'x'", "x + 1 > 0"}) {
    std::string r = refusal("    big = 1.0 if " + use + " else 2.0\n", "2");
    EXPECT_NE(r.find("cannot lift"), std::string::npos) << use << ": " << r;
  }
}

}  // namespace

namespace {

std::string refusal_of(const std::string& text, int nc_version = 2) {
  try {
    loopnest::lift_source("k.py", text, arrays({{256, 512}}), "", nc_version);
  } catch (const loopnest::LiftError& e) {
    return e.render();
  }
  return "lifted";
}

}  // namespace

// A try statement of host code runs in the language core on the host values it reads, so its
// handler is the one Python takes (the KeyError the dict lookup raises); what it binds is a
// constant of the form.
TEST(LoopNestLift, ATryOfHostCodeIsDecidedAtTraceTime) {
  std::string text = kernel_with(
      "    table = {'a': 4}\n"
      "    try:\n"
      "        n = table['b']\n"
      "    except KeyError:\n"
      "        n = 2\n"
      "    else:\n"
      "        n = 8\n"
      "    finally:\n"
      "        big = 1.0\n",
      "n");
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}})));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
  // A try reading a tile's values, or doing tile work, is refused naming what it reads.
  std::string tile = refusal_of(kernel_with(
      "    big = 1.0\n"
      "    try:\n"
      "        u = nl.load(x[0:128, :])\n"
      "    except ValueError:\n"
      "        pass\n",
      "2"));
  EXPECT_NE(tile.find("cannot lift a try statement doing tile work on 'x'"), std::string::npos) << tile;
  EXPECT_NE(tile.find("k.py:"), std::string::npos) << tile;
  // A try inside a loop of the kernel reading the loop's index depends on it: refused, named.
  std::string loop = refusal_of(std::string(kHead) +
                                "def kernel(x):\n"
                                "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                                "    for i in nl.affine_range(2):\n"
                                "        try:\n"
                                "            s = [1.0, 2.0][i]\n"
                                "        except IndexError:\n"
                                "            s = 0.0\n"
                                "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                                "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(t, s))\n"
                                "    return out\n");
  EXPECT_NE(loop.find("a value depending on a loop of the kernel"), std::string::npos) << loop;
}

// nisa.get_nc_version() is the target's generation while tracing (8.5), as in the interpreter: the
// form is the branch that target's trace runs.
TEST(LoopNestLift, TheTargetsGenerationIsATraceTimeConstant) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    import neuronxcc.nki.isa as nisa\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        if nisa.get_nc_version() >= nisa.nc_version.gen3:\n"
                     "            y = nl.exp(t)\n"
                     "        else:\n"
                     "            y = nl.tanh(t)\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n"
                     "    return out\n";
  std::string gen2 = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}}), "", 2));
  std::string gen3 = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}}), "", 3));
  EXPECT_NE(gen2.find("nl.tanh"), std::string::npos) << gen2;
  EXPECT_NE(gen3.find("nl.exp"), std::string::npos) << gen3;
  EXPECT_EQ(refusal_of(text, 3), "lifted");
}

// A loop of host code leaving by break / continue (`while True: ... if n * 128 >= R: break`, a
// search over host values) runs as Python runs it; one doing tile work lifts when its continues
// guard the rest of its body (`if i == 1: continue`: an if / else of the form), and is refused,
// named, with a break nested deeper than the top of its body.
// A slice's and a range's start / stop / step are host values (an outside author's helper sized its
// tile `cols.stop - cols.start` from the slice it was given; the lift and the language core both
// refused the attribute until session 42). The kernel lifts, keeps its trips, and its sites hold.
TEST(LoopNestLift, ASlicesAndARangesBoundsAreHostValues) {
  std::string text = std::string(kHead) +
                     "def scaled(x, rows, cols):\n"
                     "    width = cols.stop - cols.start\n"
                     "    t = nl.load(x[rows, cols])\n"
                     "    return nl.multiply(t, float(width // 128))\n"
                     "\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    R, C = x.shape\n"
                     "    tiles = range(0, R, 128)\n"
                     "    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(tiles.stop // tiles.step):\n"
                     "        for j in nl.affine_range(C // 256):\n"
                     "            cols = slice(j * 256, (j + 1) * 256)\n"
                     "            y = scaled(x, slice(i * 128, (i + 1) * 128), cols)\n"
                     "            nl.store(out[i * 128:(i + 1) * 128, cols], value=y)\n"
                     "    return out\n";
  text.erase(text.find("@nki.jit\n"), 9);  // kHead's decorator belongs to the kernel, not the helper
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}})));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
  EXPECT_NE(dump.find("for j in affine_range(2):"), std::string::npos) << dump;
  EXPECT_NE(dump.find("2.0"), std::string::npos) << dump;  // width // 128 of a 256-column slice
  loopnest_test::expect_every_site_keeps_result("k.py", text, arrays({{256, 512}}));
}

TEST(LoopNestLift, AHostLoopWithBreakRunsAtTraceTime) {
  std::string text = kernel_with(
      "    n = 0\n"
      "    while True:\n"
      "        n += 1\n"
      "        if n * 128 >= R:\n"
      "            break\n"
      "    for big in (3.0, 2.0, 1.0):\n"
      "        if big * n < 5:\n"
      "            break\n"
      "        continue\n",
      "n");
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 512}})));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
  EXPECT_NE(dump.find("y=2.0"), std::string::npos) << dump;  // nl.minimum(t, big) with big = 2.0
  std::string tiles = refusal_of(std::string(kHead) +
                                 "def kernel(x):\n"
                                 "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                                 "    for i in range(2):\n"
                                 "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                                 "        if i >= 0:\n"
                                 "            if i == 1:\n"
                                 "                break\n"
                                 "        nl.store(out[i * 128:(i + 1) * 128, :], value=t)\n"
                                 "    return out\n");
  // (`if i == 1: break` at the top of the body lifts since session 22: break_guard_test.cpp.)
  EXPECT_NE(tiles.find("cannot lift a for loop with break / continue doing tile work on '"), std::string::npos) << tiles;
  EXPECT_NE(tiles.find("lifts a continue or break only as the last statement of an if"), std::string::npos) << tiles;
  std::string guard = std::string(kHead) +
                      "def kernel(x):\n"
                      "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                      "    for i in range(2):\n"
                      "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                      "        if i == 1:\n"
                      "            continue\n"
                      "        nl.store(out[i * 128:(i + 1) * 128, :], value=t)\n"
                      "    return out\n";
  auto form = loopnest::lift_source("k.py", guard, arrays({{256, 512}}));
  std::string guarded = loopnest::dump(form);
  EXPECT_NE(guarded.find("if i == 1:"), std::string::npos) << guarded;
  EXPECT_NE(guarded.find("else:"), std::string::npos) << guarded;
  EXPECT_EQ(loopnest::emit(form), guard);  // printed back as written
}
