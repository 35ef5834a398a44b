// Constructs of the session 12 corpus kernels (tests/kernels/corpus/p12_*, docs/language.md
// "Kernels by idiom, session 12") that the lifter or a move got wrong: empty lists made by a tuple
// assignment, a helper's `if` on a shape, a helper's argument that is another helper's result, a
// wrapper passing arguments, tile_size over a scan, jam_rows' row bindings; and the listing that
// offered sites applying refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;

const char* const kHead = "import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\n"
                          "import neuronxcc.nki.language as nl\n\n\n";

// `s_parts, q_parts = [], []` then one append to each per copy of an unrolled host loop: the lists
// are made at the loop's depth as `s_parts = []` is (p12_llm_layernorm_shape_branch: "cannot lift a
// list appended more than once per iteration of one loop").
TEST(LoopNestLift, EmptyListsMadeByATupleAssignmentTakeAppendsLikeOneMadeByName) {
  std::string text = std::string(kHead) +
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 1), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        s_parts, q_parts = [], []\n"
                     "        for start, width in [(0, 512), (512, 256)]:\n"
                     "            s_parts.append(nl.sum(t[:, start:start + width], axis=1, keepdims=True))\n"
                     "            q_parts.append(nl.max(t[:, start:start + width], axis=1, keepdims=True))\n"
                     "        s = nl.add(nl.add(s_parts[0], s_parts[1]), nl.add(q_parts[0], q_parts[1]))\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=s)\n"
                     "    return out\n";
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, arrays({{256, 768}})));
  EXPECT_NE(d.find("nl.sum(x=t[a0[128], 512 + a1[256]], axis=1, keepdims=True)"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.max(x=t[a0[128], a1[512]], axis=1, keepdims=True)"), std::string::npos) << d;
  // A list bound by a tuple assignment and then rebound to items is no longer an empty list.
  std::string twice = std::string(kHead) +
                      "@nki.jit\n"
                      "def kernel(x):\n"
                      "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                      "    parts, other = [], []\n"
                      "    for i in nl.affine_range(2):\n"
                      "        parts.append(nl.load(x[i * 128:(i + 1) * 128, :]))\n"
                      "        parts.append(nl.load(x[i * 128:(i + 1) * 128, :]))\n"
                      "    return out\n";
  try {
    loopnest::lift_source("k.py", twice, arrays({{256, 64}}));
    FAIL() << "two appends per iteration to a list made outside the loop lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("k.py:13:9: error: cannot lift a list appended more than once per iteration of one loop"),
              std::string::npos)
        << e.render();
  }
}

// A list bound empty outside a loop that encloses the appending one grows across that loop, so
// `tiles[k]` reads the first iteration's tiles: refused with its reason (it lifted as a tile per
// iteration of the appending loop, and an interchange that moved a list's binding out of the outer
// loop printed such a kernel unnoticed). Bound inside that loop, it lifts.
TEST(LoopNestLift, AListBoundOutsideALoopAroundItsAppendsIsRefused) {
  auto kernel_binding_at = [](const std::string& outer, const std::string& inner) {
    return std::string(kHead) +
           "@nki.jit\n"
           "def kernel(x):\n"
           "    out = nl.ndarray((2, 128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n" +
           outer +
           "    for g in nl.affine_range(2):\n" + inner +
           "        for k in nl.affine_range(2):\n"
           "            tiles.append(nl.load(x[g, k]))\n"
           "        nl.store(out[g], value=nl.add(tiles[0], tiles[1]))\n"
           "    return out\n";
  };
  auto args = arrays({{2, 2, 128, 64}});
  EXPECT_NO_THROW(loopnest::lift_source("k.py", kernel_binding_at("", "        tiles = []\n"), args));
  try {
    loopnest::lift_source("k.py", kernel_binding_at("    tiles = []\n", ""), args);
    FAIL() << "a list growing across `for g` lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_NE(e.render().find("k.py:13:13: error: cannot lift a list bound empty outside a loop around the loop "
                              "appending to it"),
              std::string::npos)
        << e.render();
  }
}

// The kernel with its helpers opened, printed: the printed kernel in `after`, its `def kernel`
// onwards returned (the helpers stay defined above it); "" when they stay closed (the reason in
// `after`).
std::string kernel_with_helpers_opened(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                                       std::string& after) {
  auto form = loopnest::lift_source("k.py", text, args);
  if (auto closed = loopnest::helpers_stay_closed(form)) {
    after = *closed;
    return "";
  }
  // The kernel with every helper opened, printed (a helpers=open site's move would open them, but
  // a move inside a helper now prints in its body: helpers=body).
  if (loopnest::open_helpers(form) == 0) {
    after = "no helper to open";
    return "";
  }
  after = loopnest::emit_checked(form, args);
  return after.substr(after.find("def kernel"));
}

// `def kernel(x): return leaky(x, slope=0.2)`, a wrapper passing the jit kernel extra arguments
// (corpus README): the whole kernel was one helper node at the top level, never opened (helpers
// open inside loops), so p12_mix_mgrid_where_tail and p12_new_iota_onehot_smooth offered no site.
// It lifts as the kernel it calls, as a wrapper launching one kernel on a grid does; the printed
// kernel keeps the wrapper and its call.
TEST(LoopNestLift, AWrapperPassingArgumentsLiftsAsTheKernelItCalls) {
  std::string text = std::string(kHead) +
                     "@nki.jit\n"
                     "def leaky(x, slope=0.1):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        y = nl.where(t > 0.0, t, nl.multiply(t, slope))\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n"
                     "    return out\n\n\n"
                     "def kernel(x):\n"
                     "    return leaky(x, slope=0.2)\n";
  auto args = arrays({{256, 64}});
  auto form = loopnest::lift_source("k.py", text, args);
  std::string d = loopnest::dump(form);
  EXPECT_EQ(d.find("inline leaky"), std::string::npos) << d;
  EXPECT_NE(d.find("nl.multiply(x=t, y=0.2)"), std::string::npos) << d;  // the wrapper's argument
  auto sites = loopnest::find_sites(form);
  ASSERT_FALSE(sites.empty()) << d;
  std::string after = loopnest::apply_site("k.py", text, args, sites.front());
  EXPECT_NE(after.find("def kernel(x):\n    return leaky(x, slope=0.2)"), std::string::npos) << after;
}

// `row_max(scale(t, 0.5))`: scale's result is row_max's parameter, and the lift holds row_max's
// first statement reading it as the operations of the inner call's node. Opened, those printed as
// the helper wrote them (`nl.max(scale_result, axis=axis, ...)`, `axis` a parameter the kernel
// does not bind), so the opened kernel did not lift and no site was offered inside
// (p12_llm_scores_softmax_helpers).
TEST(OpenHelpers, AHelperWhoseArgumentIsAnotherHelpersResultOpens) {
  std::string text = std::string(kHead) +
                     "def scale(t, f: float):\n"
                     "    return nl.multiply(t, f)\n\n\n"
                     "def row_max(s, axis: int = 1):\n"
                     "    m = nl.max(s, axis=axis, keepdims=True)\n"
                     "    return nl.subtract(s, m)\n\n\n"
                     "@nki.jit\n"
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(2):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        p = row_max(scale(t, 0.5))\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=p)\n"
                     "    return out\n";
  std::string after, body = kernel_with_helpers_opened(text, arrays({{256, 64}}), after);
  ASSERT_FALSE(body.empty()) << after;
  EXPECT_EQ(body.find("axis=axis"), std::string::npos) << after;
  EXPECT_NE(body.find("m = nl.max("), std::string::npos) << after;
  EXPECT_NE(body.find(", axis=1, keepdims=True)"), std::string::npos) << after;
}

// A helper choosing its code path by an `if` on a shape (`if D <= MAX_FREE:` one pass, else partial
// sums per chunk in host lists): Python decides it while tracing, so the branch taken is the
// helper's code, and the lists' items, read as `s_parts[c]`, are names of their own. Both kept the
// helper closed ("a helper with a condition cannot be opened", then "an access to an unnamed
// tensor outside its statement"): p12_llm_layernorm_shape_branch offered no site.
TEST(OpenHelpers, AHelperBranchingOnAShapeOpensTheBranchTaken) {
  const std::string text = std::string(kHead) +
                           "MAX_FREE = 512\n\n\n"
                           "def row_sums(t, D: int):\n"
                           "    if D <= MAX_FREE:\n"
                           "        return nl.sum(t, axis=1, keepdims=True)\n"
                           "    s_parts = []\n"
                           "    for start, width in [(c, min(MAX_FREE, D - c)) for c in range(0, D, MAX_FREE)]:\n"
                           "        s_parts.append(nl.sum(t[:, start:start + width], axis=1, keepdims=True))\n"
                           "    s = s_parts[0]\n"
                           "    for c in nl.static_range(1, len(s_parts)):\n"
                           "        s = nl.add(s, s_parts[c])\n"
                           "    return s\n\n\n"
                           "@nki.jit\n"
                           "def kernel(x):\n"
                           "    N, D = x.shape\n"
                           "    out = nl.ndarray((N, 1), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                           "    for i in nl.affine_range(N // 128):\n"
                           "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                           "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(row_sums(t, D), 2.0))\n"
                           "    return out\n";
  for (int cols : {256, 768}) {  // the early return taken, then the chunked path
    SCOPED_TRACE(cols);
    std::string after, body = kernel_with_helpers_opened(text, arrays({{256, cols}}), after);
    ASSERT_FALSE(body.empty()) << after;
    EXPECT_EQ(body.find("row_sums("), std::string::npos) << after;
    EXPECT_EQ(body.find("if "), std::string::npos) << after;
    // One sum of the whole row, or one per chunk of 512 added up.
    EXPECT_EQ(body.find("s_parts_item = nl.sum(") != std::string::npos, cols > 512) << after;
    EXPECT_EQ(body.find("t[:, 512:768]") != std::string::npos, cols > 512) << after;
  }
}

std::optional<loopnest::Site> coarsen_site(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "tile_size" && s.params.at("direction") == "coarsen") return s;
  return std::nullopt;
}

// tile_size along a scan's axis: one scan over a wider tile continues the recurrence through the
// blocks that each started their own (initial=0.0), and a part of a grown tile (`h[:, 127:128]`,
// the carry into the next chunk) names another place in the wide one. p12_mix_scan_decay_masked's
// site printed `h[ip, 127 + nl.arange(256)[None, :]]`, out of bounds. The same loop with an
// elementwise body is coarsened.
TEST(LoopNestTransforms, TileSizeLeavesAScanAxisAndAPartOfAGrownTileAlone) {
  auto args = arrays({{128, 512}, {128, 512}});
  auto kernel = [](const std::string& body) {
    return std::string(kHead) +
           "@nki.jit\n"
           "def kernel(a, x):\n"
           "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n"
           "    carry = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
           "    for c in nl.sequential_range(4):\n"
           "        at = nl.load(a[:, c * 128:(c + 1) * 128])\n"
           "        xt = nl.load(x[:, c * 128:(c + 1) * 128])\n" +
           body +
           "        nl.store(out[:, c * 128:(c + 1) * 128], value=h)\n"
           "    return out\n";
  };
  std::string restarted = kernel("        h = nisa.tensor_tensor_scan(at, xt, initial=0.0, op0=np.multiply, op1=np.add)\n");
  EXPECT_FALSE(coarsen_site(restarted, args));
  std::string last_column = kernel("        h = nl.multiply(at, xt)\n"
                                   "        carry[...] = nl.copy(h[:, 127:128])\n");
  EXPECT_FALSE(coarsen_site(last_column, args));
  std::string elementwise = kernel("        h = nl.multiply(at, xt)\n");
  EXPECT_TRUE(coarsen_site(elementwise, args));
}

}  // namespace

namespace {

// jam_rows of a loop whose row bindings chain (`n_start = n * 128`, `n_end = n_start + 128`) and
// whose per-row tile is declared with `dtype=t.dtype`: the first binding went, the second stayed
// naming it, and each row's copy of the declaration kept `t.dtype` where the row's tile is `t_0`,
// so the printed kernel did not lift (tut_matmul_fully_optimized's jam_rows, listed and refused at
// apply since its wrapper lifts as the kernel). Both now print from the form.
TEST(LoopNestTransforms, JamRowsDropsChainedRowBindingsAndPrintsOperandsOfCopies) {
  std::string text = std::string(kHead) +
                     "@nki.jit\n"
                     "def kernel(x, w):\n"
                     "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for n in nl.affine_range(2):\n"
                     "        n_start = n * 128\n"
                     "        n_end = n_start + 128\n"
                     "        t = nl.load(x[n_start:n_end, :])\n"
                     "        wt = nl.load(w[0:128, :])\n"
                     "        res = nl.ndarray((128, 64), dtype=t.dtype, buffer=nl.sbuf)\n"
                     "        res[...] = nl.add(t, wt)\n"
                     "        nl.store(out[n_start:n_end, :], value=res)\n"
                     "    return out\n";
  auto args = arrays({{256, 64}, {128, 64}});
  std::optional<loopnest::Site> jam;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "jam_rows") jam = s;
  ASSERT_TRUE(jam);
  std::string after = loopnest::apply_site("k.py", text, args, *jam);
  EXPECT_EQ(after.find("n_start"), std::string::npos) << after;
  EXPECT_EQ(after.find("n_end"), std::string::npos) << after;
  EXPECT_EQ(after.find("t.dtype"), std::string::npos) << after;
  EXPECT_NE(after.find("res_1 = nl.ndarray("), std::string::npos) << after;
}

}  // namespace

namespace {

// A loop whose row index divides (`w[(i // 4) * 128:...]`): jam_rows by 2 substitutes `2 * i + j`,
// a `//` in every copy, which apply_site once refused while the listing offered it. The listing
// asks the question apply asks (result_refusal), so every listed site applies. Copies of a `// 4`
// the kernel has are no new kind of index (the rule refuses kinds, not counts: an unrolled
// loop's scratch indexed `kq % 2` is copied per row too), so by 2 the jam is listed and applies;
// by 4, `(4 * i + j) // 4` is `i`.
TEST(LoopNestTransforms, TheListingRefusesWhatApplyingRefuses) {
  std::string text = std::string(kHead) +
                     "@nki.jit\n"
                     "def kernel(x, w, b):\n"
                     "    out = nl.ndarray((1024, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(8):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
                     "        wt = nl.load(w[(i // 4) * 128:(i // 4 + 1) * 128, :])\n"
                     "        bt = nl.load(b[0:128, :])\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(nl.add(t, wt), bt))\n"
                     "    return out\n";
  auto args = arrays({{1024, 64}, {256, 64}, {128, 64}});
  auto form = loopnest::lift_source("k.py", text, args);
  std::set<std::string> jam_factors;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites) {
    // (The loop split by its `i // 4` offers its own jam of the outer loop: flat_loops=split.)
    if (s.transform == "jam_rows" && !s.params.count("flat_loops")) jam_factors.insert(s.params.at("factor"));
    EXPECT_NO_THROW(loopnest::apply_site("k.py", text, args, s)) << s.key();
  }
  EXPECT_EQ(jam_factors, (std::set<std::string>{"2", "4"}));
}

}  // namespace

namespace {

// select_reduce's result holds its on-true tile's values: typed as its first tile operand (the
// uint8/bool predicate), usr_masked_row_argmax's `masked` looked bool, so in_place wrote the
// comparison `masked == row_max` over it and engine_assign printed that comparison as a
// tensor_scalar without dtype=, each giving `nl.bitwise_and` a float32 tile the interpreter refuses
// (three sites the site-result test listed as known-refused since session 11).
TEST(LoopNestLift, ASelectionIsTypedAsItsOnTrueTile) {
  std::string path = loopnest_test::source_dir() + "/tests/kernels/corpus/usr_masked_row_argmax.py";
  std::string text = loopnest_test::read(path);
  auto args = arrays({{256, 384}, {256, 1}});
  auto form = loopnest::lift_source(path, text, args);
  std::string d = loopnest::dump(form);
  EXPECT_NE(d.find("tensor masked: sbuf float32[128, 384]"), std::string::npos) << d;
  EXPECT_NE(d.find("tensor keep: sbuf bool[128, 384]"), std::string::npos) << d;
  int equal_moves = 0;
  for (const auto& s : loopnest::find_sites(form)) {
    if (s.transform != "engine_assign" || s.anchor.find("ts(equal)") == std::string::npos) continue;
    std::string after = loopnest::apply_site(path, text, args, s);
    EXPECT_NE(after.find("op0=nl.equal, operand0=row_max, dtype=nl.bool_"), std::string::npos) << after;
    ++equal_moves;
  }
  // GpSimd only: ScalarE runs no `equal` tensor_scalar (ISA tensor_scalar: (multiply, add),
  // (multiply), (add) only; trn/alu_engines.h).
  EXPECT_EQ(equal_moves, 1);
}

}  // namespace
