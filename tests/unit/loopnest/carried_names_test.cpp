// A tile carried from one iteration to the next through a Python name (`acc = nl.add(acc, t)`,
// a running max `m = m_new`) in an affine or sequential loop: the form holds it as the buffer
// declared before the loop, every rebinding a write into it (lift_carry.cpp), and the dependence
// analysis reports the loop as carrying it (carried_tensors, analysis.h), so the moves that
// reorder, interleave or merge iterations leave such a loop alone.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "../nkilib/kernel_harness.h"
#include "corpus.h"
#include "every_site.h"
#include "form_queries.h"
#include "run_kernel.h"
#include "loopnest/analysis.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::expect_every_site_keeps_result;
using loopnest_test::run;
using loopnest_test::loop_named;
using loopnest_test::transforms_offered;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

// A kernel over x [rows, 4, 128, 64]: `body` inside `for i` (rows) and `for j` (4), acc [128, 64].
std::string nest(const std::string& body) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    acc = nl.zeros((128, 64), dtype=nl.float32)\n"
         "    for i in nl.affine_range(2):\n"
         "        for j in nl.affine_range(4):\n"
         "            t = nl.load(x[i, j])\n" + body +
         "    nl.store(out, value=acc)\n"
         "    return out\n";
}

TEST(LoopNestCarried, ANameReboundInASequentialLoopIsABufferTheLoopCarries) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    m = nl.full((128, 1), -3.0e38, dtype=nl.float32)\n"
                     "    for c in nl.sequential_range(4):\n"
                     "        t = nl.load(x[:, c * 64:(c + 1) * 64])\n"
                     "        m_new = nl.maximum(m, nl.max(t, axis=1, keepdims=True))\n"
                     "        m = m_new\n"
                     "    nl.store(out, value=m)\n"
                     "    return out\n";
  auto args = arrays({{128, 256}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(form);
  EXPECT_NE(d.find("tensor m: sbuf float32[128, 1] buffer carried by c\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\n  m_new = nl.maximum(x=m, y=%1) @dve\n  m = assign(src=m_new) @dve\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\nnl.store(dst=out, value=m) @dma\n"), std::string::npos) << d;  // the last value
  std::set<int> carried = loopnest::carried_tensors(form, loop_named(form, "c"));
  ASSERT_EQ(carried.size(), 1u);
  EXPECT_EQ(form.tensor(*carried.begin()).name, "m");
  // Unchanged, it prints back as written; regenerated, it computes the same numbers.
  EXPECT_EQ(loopnest::emit(form), text);
  std::string again = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_EQ(run("k.py", again, arrays({{128, 256}})), run("k.py", text, arrays({{128, 256}}))) << again;
}

TEST(LoopNestCarried, AnInterchangeThatWouldReorderACarriedTileIsRefused) {
  auto args = arrays({{2, 4, 128, 64}});
  // An accumulation only changes the order of a sum: the interchange is offered (the control).
  auto sum = loopnest::lift_source("k.py", nest("            acc += t\n"), args);
  EXPECT_TRUE(transforms_offered(sum).count("interchange_loops")) << loopnest::dump(sum);
  // `acc = t - acc` in both loops: the order of the eight updates is the result.
  auto alternating = loopnest::lift_source("k.py", nest("            acc = nl.subtract(t, acc)\n"), args);
  EXPECT_FALSE(transforms_offered(alternating).count("interchange_loops")) << loopnest::dump(alternating);
  // A carry per row (`acc[i]`, written where the outer loop moves it): the swap keeps each row's order.
  std::string per_row = std::string(kHead) +
                        "def kernel(x):\n"
                        "    out = nl.ndarray((2, 128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                        "    acc = nl.zeros((2, nl.par_dim(128), 64), dtype=nl.float32)\n"
                        "    for i in nl.affine_range(2):\n"
                        "        for j in nl.affine_range(4):\n"
                        "            t = nl.load(x[i, j])\n"
                        "            acc[i] = nl.subtract(t, acc[i])\n"
                        "    for i in nl.affine_range(2):\n"
                        "        nl.store(out[i], value=acc[i])\n"
                        "    return out\n";
  auto rows = loopnest::lift_source("k.py", per_row, args);
  EXPECT_TRUE(transforms_offered(rows).count("interchange_loops")) << loopnest::dump(rows);
}

TEST(LoopNestCarried, MovesThatSplitOrMergeIterationsLeaveACarryingLoopAlone) {
  auto args = arrays({{2, 4, 128, 64}});
  // Without a carry the nest is interchanged, and the row loop unrolled and jammed around the
  // row-independent load (the control).
  std::string free = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((2, 4, 128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        for j in nl.affine_range(4):\n"
                     "            w = nl.load(x[0, j])\n"
                     "            t = nl.load(x[i, j])\n"
                     "            nl.store(out[i, j], value=nl.multiply(t, w))\n"
                     "    return out\n";
  auto control = transforms_offered(loopnest::lift_source("k.py", free, args));
  EXPECT_TRUE(control.count("jam_rows") && control.count("interchange_loops")) << control.size();
  std::string text = nest("            w = nl.load(x[0, j])\n"
                          "            acc = nl.maximum(nl.multiply(acc, 0.5), nl.multiply(t, w))\n");
  auto form = loopnest::lift_source("k.py", text, args);
  for (const char* move : {"jam_rows", "interchange_loops", "fuse_nests", "reorder_reuse", "free_size"})
    EXPECT_FALSE(transforms_offered(form).count(move)) << move << "\n" << loopnest::dump(form);
  EXPECT_FALSE(loopnest::independent_iterations(form, loop_named(form, "i")));
  EXPECT_FALSE(loopnest::independent_iterations(form, loop_named(form, "j")));
  expect_every_site_keeps_result("k.py", text, args);  // whatever is offered keeps the result
}

// What the form cannot carry is refused as before, naming the name and pointing at the loop or
// the statement, compiler-style.
TEST(LoopNestCarried, WhatTheFormCannotCarryIsRefusedWithTheReason) {
  auto refusal = [](const std::string& body, const std::string& before = "    acc = nl.zeros((128, 64), dtype=nl.float32)\n") {
    std::string text = std::string(kHead) +
                       "def kernel(x):\n"
                       "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n" + before +
                       "    for j in nl.sequential_range(4):\n"
                       "        t = nl.load(x[j])\n" + body +
                       "    nl.store(out, value=t)\n"
                       "    return out\n";
    try {
      loopnest::lift_source("k.py", text, arrays({{4, 128, 64}}));
    } catch (const loopnest::LiftError& e) {
      return e.render();
    }
    return std::string("lifted");
  };
  // A second name for the carried tile would keep the old value in Python, not in the buffer.
  std::string alias = refusal("        old = acc\n        acc = nl.add(acc, t)\n        t = nl.subtract(t, old)\n");
  EXPECT_NE(alias.find("k.py:11:9: error: cannot lift 'old' bound to the tile carried through 'acc'"), std::string::npos) << alias;
  EXPECT_NE(alias.find("\n      |         ^~~"), std::string::npos) << alias;
  // Another shape or dtype than the carried tile's.
  std::string shape = refusal("        acc = nl.sum(nl.add(acc, t), axis=1, keepdims=True)\n");
  EXPECT_NE(shape.find("k.py:11:9: error: cannot lift the rebinding of 'acc'"), std::string::npos) << shape;
  EXPECT_NE(shape.find("shape [128, 1], not the carried tile's [128, 64]"), std::string::npos) << shape;
  std::string dtype = refusal("        acc = nl.add(acc, t, dtype=nl.bfloat16)\n");
  EXPECT_NE(dtype.find("a bfloat16 tile, not the carried tile's float32"), std::string::npos) << dtype;
  // A tile an instruction returned before the loop is carried as a declared one is (the prologue
  // of a hand-pipelined loop, session 20).
  EXPECT_EQ(refusal("        acc = nl.add(acc, t)\n", "    acc = nl.exp(nl.load(x[0]))\n"), "lifted");
  std::string blocks = refusal("        acc = nl.add(acc, acc)\n", "    acc = nl.zeros((2, nl.par_dim(128), 64), dtype=nl.float32)\n");
  EXPECT_NE(blocks.find("it holds a buffer with block dims, not one tile"), std::string::npos) << blocks;
  // A Python number rebound per iteration (session 27): the loop, whose trip count is a constant,
  // lifts as the copies Python's trace runs, as a number walked by `+=` does.
  EXPECT_EQ(refusal("        s = s + 1\n", "    s = 0\n"), "lifted");
  // Rebound by unpacking: lifts since session 37, the item's operation writing the buffer
  // (carried_tuple_test.cpp, which also covers the swap the buffers cannot hold).
  EXPECT_EQ(refusal("        acc, u = nl.add(acc, t), t\n"), "lifted");
}

}  // namespace
