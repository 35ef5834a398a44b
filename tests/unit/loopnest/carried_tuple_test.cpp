// Tiles carried through a loop as a tuple (session 37, issue 13: the lift must be total on
// well-formed kernels): `state = (nl.add(state[0], t), ...)` under one name, or `a, b = nl.add(a,
// t), nl.add(b, t)` rebinding several carried names at once. Each item is a buffer of the form
// (lift_carry.cpp, rebind_carried_items), written by its item's operation, so the dependence
// analysis sees the carried values and the moves that reorder or merge iterations leave the loop
// alone. Before, both were refused ("a value taken from an operation's result", "an unpacking of
// an operation's results").
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
using loopnest_test::loop_named;
using loopnest_test::transforms_offered;
using loopnest_test::read;
using loopnest_test::source_dir;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

// A kernel over x [2, 4, 128, 64]: `init` before the nest, `body` inside `for i` (2) and `for j` (4).
std::string nest(const std::string& init, const std::string& body, const std::string& result) {
  return std::string(kHead) +
         "def kernel(x):\n"
         "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n" + init +
         "    for i in nl.affine_range(2):\n"
         "        for j in nl.affine_range(4):\n"
         "            t = nl.load(x[i, j])\n" + body +
         "    nl.store(out, value=" + result + ")\n"
         "    return out\n";
}

TEST(CarriedTuple, ATupleUnderOneNameAndANamesUnpackingAreBuffersTheLoopCarries) {
  std::string path = source_dir() + "/tests/kernels/corpus/p37_carried_tuple_state.py";
  std::string text = read(path);
  auto args = arrays({{256, 512}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  std::string d = loopnest::dump(form);
  for (const char* line : {"tensor lo: sbuf float32[128, 1] buffer per r carried by c\n",
                           "tensor hi: sbuf float32[128, 1] buffer per r carried by c\n",
                           "tensor acc[0]: sbuf float32[128, 1] buffer per r carried by c\n",
                           "    lo = nl.minimum(x=lo, y=%1) @dve\n", "    hi = nl.maximum(x=hi, y=%2) @dve\n",
                           "    acc[0] = nl.add(x=acc[0], y=%4) @dve\n", "  res[a0[128], 2 + a1[1]] = nl.copy(src=acc[0]) @dve\n"})
    EXPECT_NE(d.find(line), std::string::npos) << line << "\n" << d;
  EXPECT_EQ(loopnest::carried_tensors(form, loop_named(form, "c")).size(), 3u) << d;
  EXPECT_EQ(loopnest::emit(form), text);  // printed back as written
}

TEST(CarriedTuple, MovesNeedingIndependentIterationsLeaveALoopCarryingATupleAlone) {
  auto args = arrays({{2, 4, 128, 64}});
  const std::string zeros = "nl.zeros((128, 64), dtype=nl.float32)";
  // The control: the same nest without a carry is interchanged.
  auto control = loopnest::lift_source("k.py", nest("    acc = " + zeros + "\n", "            acc += t\n", "acc"), args);
  EXPECT_TRUE(transforms_offered(control).count("interchange_loops")) << loopnest::dump(control);
  // `state = (t - state[0], state[1] + t)`: the order of the eight updates is the result.
  const std::string tuple_text = nest("    state = (" + zeros + ", " + zeros + ")\n",
                                      "            state = (nl.subtract(t, state[0]), nl.add(state[1], t))\n",
                                      "nl.add(state[0], state[1])");
  const std::string unpacked_text = nest("    a = " + zeros + "\n    b = " + zeros + "\n",
                                         "            a, b = nl.subtract(t, a), nl.add(b, t)\n", "nl.add(a, b)");
  for (const std::string& text : {tuple_text, unpacked_text}) {
    SCOPED_TRACE(text);
    auto form = loopnest::lift_source("k.py", text, args);
    std::string d = loopnest::dump(form);
    EXPECT_NE(d.find("carried by j"), std::string::npos) << d;
    for (const char* move : {"interchange_loops", "jam_rows", "fuse_nests", "reorder_reuse"})
      EXPECT_FALSE(transforms_offered(form).count(move)) << move << "\n" << d;
    EXPECT_FALSE(loopnest::independent_iterations(form, loop_named(form, "i")));
    EXPECT_FALSE(loopnest::independent_iterations(form, loop_named(form, "j")));
    expect_every_site_keeps_result("k.py", text, args);  // whatever is offered keeps the result
  }
}

// `a, b = nl.add(b, t), nl.add(a, t)`: the second item reads a's old tile, which a buffer written by
// the first item no longer holds. The buffers are refused; a loop of constant trip count then lifts
// as the copies Python's trace runs (for_loop), each copy's results fresh tiles.
TEST(CarriedTuple, ASwapTheBuffersCannotHoldLiftsAsTheTracesCopies) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    a = nl.zeros((128, 64), dtype=nl.float32)\n"
                     "    b = nl.zeros((128, 64), dtype=nl.float32)\n"
                     "    for j in nl.sequential_range(4):\n"
                     "        t = nl.load(x[j])\n"
                     "        a, b = nl.add(b, t), nl.add(a, t)\n"
                     "    nl.store(out, value=nl.subtract(a, b))\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{4, 128, 64}})));
  EXPECT_EQ(d.find("carried by"), std::string::npos) << d;
  EXPECT_NE(d.find("inline for:\n"), std::string::npos) << d;
  EXPECT_NE(d.find("  a#3 = nl.add(x=b#2, y=t#2) @dve\n  b#3 = nl.add(x=a#2, y=t#2) @dve\n"), std::string::npos) << d;
}

// `a, b = state` inside the loop binds names to the carried items, which the buffers would change
// under them: a loop of constant trip count lifts as the trace's copies instead.
TEST(CarriedTuple, ACarriedTupleUnpackedInsideTheLoopLiftsAsTheTracesCopies) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    state = (nl.zeros((128, 64), dtype=nl.float32), nl.zeros((128, 64), dtype=nl.float32))\n"
                     "    for j in nl.sequential_range(2):\n"
                     "        t = nl.load(x[j])\n"
                     "        a, b = state\n"
                     "        state = (nl.add(a, t), nl.subtract(b, a))\n"
                     "    nl.store(out, value=nl.add(state[0], state[1]))\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{2, 128, 64}})));
  EXPECT_EQ(d.find("carried by"), std::string::npos) << d;
  EXPECT_NE(d.find("state[1]#3 = nl.subtract(x=state[1]#2, y=state[0]#2) @dve\n"), std::string::npos) << d;
}

}  // namespace
