// Host values that differ per iteration of a loop of the kernel (lift_attrs.cpp
// may_vary_per_iteration, for_loop): a Python number updated by `+=` (also inside a closure through
// `nonlocal`) and a function chosen by a condition on the loop variable. One loop of the form holds
// one value, so such a loop over a constant range lifts as the copies Python's trace runs, each with
// its own value; a loop that lifts as one loop still does. A dict of the kernel filled with tiles by
// item assignment is a host value holding them; in a loop of the form it is refused by name. And
// through an HBM scratch tensor, a store then a load of the same rows is a true dependence: two
// nests staging through it fuse only when every iteration reads the rows its own iteration wrote.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

std::string lift_error(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  try {
    loopnest::lift_source("k.py", text, args);
  } catch (const loopnest::LiftError& e) {
    return e.render();
  }
  return "";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(LoopNestHostPerIteration, ANonlocalCounterLiftsAsOneLoopCountingIt) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((384, 32), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    count = 0\n\n"
                     "    def emit(r, t):\n"
                     "        nonlocal count\n"
                     "        count += 1\n"
                     "        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(t, float(count)))\n\n"
                     "    for r in range(3):\n"
                     "        emit(r, nl.load(x[r * 128:(r + 1) * 128, :]))\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{384, 32}}));
  std::string d = loopnest::dump(k);
  // A counter bumped by 1 per iteration (lift_counter.cpp, session 44): one loop, the count r + 1
  // where the copies held 1.0, 2.0, 3.0.
  EXPECT_EQ(d.find("inline for:"), std::string::npos) << d;
  EXPECT_NE(d.find("for r in range(3):"), std::string::npos) << d;
  EXPECT_EQ(count(d, "y=float r + 1"), 1u) << d;
  EXPECT_EQ(loopnest::emit(k), text);  // printed as written
}

TEST(LoopNestHostPerIteration, AFunctionChosenByTheLoopVariableLiftsAsTheCopies) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    r = nl.load(x)\n"
                     "    for k in range(2):\n"
                     "        r = (nl.maximum if k == 0 else nl.minimum)(r, 0.5 + k)\n"
                     "    nl.store(out, value=r)\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{128, 64}})));
  size_t mx = d.find("nl.maximum(x=r, y=0.5)"), mn = d.find("nl.minimum(x=r#2, y=1.5)");
  EXPECT_NE(mx, std::string::npos) << d;
  EXPECT_NE(mn, std::string::npos) << d;
  EXPECT_LT(mx, mn) << d;
  // An integer chosen the same way is an index expression of one loop, as before.
  std::string one_loop = std::string(kHead) +
                         "def kernel(x):\n"
                         "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                         "    for r in range(2):\n"
                         "        src = 0 if r == 0 else 1\n"
                         "        t = nl.load(x[src * 128:(src + 1) * 128, :])\n"
                         "        nl.store(out[r * 128:(r + 1) * 128, :], value=t)\n"
                         "    return out\n";
  d = loopnest::dump(loopnest::lift_source("k.py", one_loop, arrays({{256, 64}})));
  EXPECT_NE(d.find("for r in range(2):"), std::string::npos) << d;
  EXPECT_EQ(d.find("inline for:"), std::string::npos) << d;
}

TEST(LoopNestHostPerIteration, ADictOfTilesFilledByItemAssignmentLifts) {
  std::string text = std::string(kHead) +
                     "def kernel(a, b):\n"
                     "    out = nl.ndarray((128, 72), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                     "    tiles = {}\n"
                     "    tiles[\"a\"] = nl.load(a)\n"
                     "    tiles[\"b\"] = nl.load(b)\n"
                     "    acc = nl.add(tiles[\"a\"], tiles[\"b\"])\n"
                     "    nl.store(out, value=acc)\n"
                     "    return out\n";
  loopnest::Kernel k = loopnest::lift_source("k.py", text, arrays({{128, 72}, {128, 72}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("nl.load(src=a)"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.add(x=tiles['a'], y=tiles['b'])"), std::string::npos) << d;
  EXPECT_EQ(loopnest::emit(k), text);
  // Regenerated, the items are written and read where the author wrote them.
  std::string again = loopnest::emit_checked(k, arrays({{128, 72}, {128, 72}}), {.regenerate = true});
  EXPECT_NE(again.find("tiles['a'] = nl.load("), std::string::npos) << again;

  std::string in_loop = std::string(kHead) +
                        "def kernel(a):\n"
                        "    out = nl.ndarray((256, 72), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                        "    tiles = {}\n"
                        "    for r in nl.affine_range(2):\n"
                        "        tiles[\"t\"] = nl.load(a[r * 128:(r + 1) * 128, :])\n"
                        "        nl.store(out[r * 128:(r + 1) * 128, :], value=tiles[\"t\"])\n"
                        "    return out\n";
  std::string err = lift_error(in_loop, arrays({{256, 72}}));
  EXPECT_NE(err.find("the assignment to 'tiles['t']', an item of a dict, in a loop of the kernel"), std::string::npos)
      << err;
}

std::string staged(bool reversed) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    scratch = nl.ndarray((256, 128), dtype=nl.float32, buffer=nl.hbm)\n"
         "    out = nl.ndarray((256, 128), dtype=nl.float32, buffer=nl.shared_hbm)\n"
         "    for r in nl.affine_range(2):\n"
         "        t = nl.load(x[nl.ds(r * 128, 128), :])\n"
         "        nl.store(scratch[nl.ds(r * 128, 128), :], value=nl.square(t))\n"
         "    for r in nl.affine_range(2):\n" +
         (reversed ? "        u = nl.load(scratch[nl.ds((1 - r) * 128, 128), :])\n"
                   : "        u = nl.load(scratch[nl.ds(r * 128, 128), :])\n") +
         "        nl.store(out[nl.ds(r * 128, 128), :], value=nl.add(u, 1.0))\n"
         "    return out\n";
}

TEST(LoopNestHostPerIteration, StagingThroughAnHbmScratchIsATrueDependence) {
  auto fusions = [](const std::string& text) {
    int n = 0;
    for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, arrays({{256, 128}}))))
      n += s.transform == "fuse_nests" ? 1 : 0;
    return n;
  };
  EXPECT_EQ(fusions(staged(false)), 1);  // iteration r reads what iteration r stored
  EXPECT_EQ(fusions(staged(true)), 0);   // iteration 0 reads what iteration 1 stores
}

}  // namespace
