// jam_rows (src/loopnest/jam_rows.cpp) shares what does not depend on the row between the rows it
// runs together, whatever the author's way of writing it: a load written inline as an argument of
// the per-row matmul (`acc += nisa.nc_matmul(xT[k], nl.load(w[...]))`) is named as a statement of
// its own and done once for the F rows, as a load into a named tile is. That the site keeps the
// kernel's result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's
// (tests/kernels/inline_load_rows.py); the printed kernel is GoldenRewrites'.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "corpus.h"
#include "count_loads.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 256}, {2, 128, 1024}});

// The jam_rows site running two rows at once; nullptr when there is none.
const loopnest::Site* jam_by_two(const std::vector<loopnest::Site>& sites) {
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2") return &s;
  return nullptr;
}

TEST(JamRows, SharesALoadWrittenInsideTheMatmulCall) {
  std::string path = source_dir() + "/tests/kernels/inline_load_rows.py";
  std::string text = read(path);
  loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
  // 2 row tiles x 2 column blocks x 2 K tiles.
  EXPECT_EQ(loads_of(text, kArgs, 1), 8);
  auto sites = loopnest::find_sites(before);
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for m`";
  std::string after = loopnest::apply_site(path, text, kArgs, *jam);
  EXPECT_EQ(loads_of(after, kArgs, 1), 4) << after;
  // One named load read by both rows' matmuls, no load left inside a matmul call.
  EXPECT_NE(after.find("w_tile = nl.load(w["), std::string::npos) << after;
  EXPECT_EQ(after.find("nc_matmul(xT_0[k, :, :], nl.load"), std::string::npos) << after;
  EXPECT_NE(after.find("nc_matmul(xT_1[k, :, :], w_tile)"), std::string::npos) << after;
}

}  // namespace

// The jammed loop's variable is fresh against the whole source, not only the form's names: a word
// the form does not hold (here a module-level name) is not shadowed (fresh_loop_var, one picker
// for every transformation's new names).
TEST(JamRows, TheJammedLoopVariableIsFreshInTheSourceText) {
  std::string path = source_dir() + "/tests/kernels/inline_load_rows.py";
  std::string text = read(path);
  const std::string marker = "@nki.jit\n";
  ASSERT_NE(text.find(marker), std::string::npos);
  text.insert(text.find(marker), "m_blk = 2\n\n\n");
  // Four row tiles: the jammed loop keeps two iterations (one would be dropped, and its name with it).
  const auto args = arrays({{512, 256}, {2, 128, 1024}});
  loopnest::Kernel before = loopnest::lift_source(path, text, args);
  auto sites = loopnest::find_sites(before);
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for m`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_NE(after.find("for m_blk2 in nl.affine_range((M // 128) // 2):"), std::string::npos) << after;
  EXPECT_EQ(after.find("for m_blk in"), std::string::npos) << after;
}

// The tool-generated style keeps every tile in a full-size block ndarray and zeroes the accumulator
// by assigning nl.zeros into its block (tests/kernels/block_ndarray_rows.py). The jammed rows share
// the weight load and each keeps its own zeros: the printed kernel lifts to the transformed form
// (it used to allocate one zeros tile for both rows in the form, two in the printed text, and the
// site was refused as "cannot be printed back").
TEST(JamRows, SharesTheWeightLoadOfABlockNdarrayKernel) {
  std::string path = source_dir() + "/tests/kernels/block_ndarray_rows.py";
  std::string text = read(path);
  const auto args = arrays({{2, 128, 2, 128}, {2, 128, 1024}});
  EXPECT_EQ(loads_of(text, args, 1), 8);  // 2 row tiles x 2 column blocks x 2 K tiles
  loopnest::Kernel before = loopnest::lift_source(path, text, args);
  auto sites = loopnest::find_sites(before);
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for i0`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_EQ(loads_of(after, args, 1), 4) << after;
  EXPECT_EQ(loads_of(after, args, 0), loads_of(text, args, 0)) << after;
}

namespace {

// Rows that share nothing but each run an in-order chain (a running max and sum carried through a
// sequential_range): jam_rows is offered, relieving the waiting ("serial"), and the jammed kernel
// runs two chains side by side. A loop with neither shared work nor a chain is not offered.
TEST(JamRows, InterleavesTheRowsInOrderChains) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_carried_rows.py";
  std::string text = read(path);
  auto args = arrays({{512, 1024}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  const loopnest::Site* jam = nullptr;
  auto sites = loopnest::find_sites(k);
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2") jam = &s;
  ASSERT_TRUE(jam);
  EXPECT_EQ(jam->relieves, (std::set<std::string>{"serial"}));
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_NE(after.find("acc_1[...] = nl.add("), std::string::npos) << after;
  std::string flat = source_dir() + "/tests/kernels/silu.py";
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(flat, read(flat), arrays({{128, 256}}))))
    EXPECT_NE(s.transform, "jam_rows") << s.key();
}

// Rows that share nothing but go from the Tensor Engine to the Scalar Engine and back (scores,
// exp, P^T and P @ V) are interleaved: each nested loop of the row's work is copied whole per row
// (one row's transposes run while the next row's exp does), the author's comments print once.
TEST(JamRows, InterleavesRowsThatGoFromAnEngineToAnotherAndBack) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_engine_round_trip.py";
  std::string text = read(path);
  auto args = arrays({{128, 512}, {128, 512}, {512, 128}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  const loopnest::Site* jam = nullptr;
  auto sites = loopnest::find_sites(k);
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2" && s.summary.find("`for r`") != std::string::npos)
      jam = &s;
  ASSERT_TRUE(jam);
  EXPECT_EQ(jam->relieves, (std::set<std::string>{"serial"}));
  std::string after = loopnest::apply_site(path, text, args, *jam);
  auto count = [&](const std::string& what) {
    int n = 0;
    for (size_t at = after.find(what); at != std::string::npos; at = after.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("for j in nl.affine_range("), 3) << after;  // the V loads', then one per row
  EXPECT_LT(after.find("nisa.nc_matmul(dst=o_ps_0"), after.find("nisa.nc_transpose(dst=pt_ps_1")) << after;
  EXPECT_EQ(count("# scores, then exp on the Scalar Engine"), 1) << after;
}

// A helper's loop variable named like a kernel parameter is renamed when the helper opens into the
// kernel (it would rebind the parameter for the kernel's next iteration).
TEST(JamRows, AnOpenedHelpersLoopVariableDoesNotRebindAParameter) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_helper_loop_var.py";
  std::string text = read(path);
  auto args = arrays({{256, 128}, {256, 64}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  const loopnest::Site* jam = nullptr;
  auto sites = loopnest::find_sites(k);
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.count("helpers")) jam = &s;
  ASSERT_TRUE(jam);
  std::string after = loopnest::apply_site(path, text, args, *jam);
  std::string body = after.substr(after.find("def kernel"));
  EXPECT_NE(body.find("for k_idx in range(2):"), std::string::npos) << after;
  EXPECT_EQ(body.find("for k in "), std::string::npos) << after;
}

}  // namespace

// Scratch tiles an ISA-level author declares once before the row loop and every row rewrites (the
// scores in PSUM, the row max and sum, a list of two PSUM tiles for the transposes): the rows
// carry nothing through them, so each row of a jammed block gets its own copy, declared next to
// the author's (tests/kernels/corpus/con_private_scratch_rows.py; that the site keeps the
// kernel's result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's).
TEST(JamRows, RowsGetTheirOwnCopiesOfScratchDeclaredBeforeTheLoop) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_private_scratch_rows.py";
  std::string text = read(path);
  const auto args = arrays({{128, 512}, {128, 512}, {512, 128}});
  const auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for r`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_NE(after.find("    nmax_1 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"), std::string::npos) << after;
  EXPECT_NE(after.find("    pt_ps_1 = [nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum) for _ in range(2)]\n"),
            std::string::npos) << after;
  EXPECT_NE(after.find("reduce_res=rsum_1"), std::string::npos) << after;
  // Declared where the author declares the scratch: before the loop, once.
  EXPECT_LT(after.find("nmax_1 = nl.ndarray("), after.find("for r_blk in")) << after;
}

// A scratch tile carrying a value from a row to the next (a running sum) is not scratch: no copy
// per row, no site.
TEST(JamRows, ATileCarriedFromRowToRowIsNotPrivatized) {
  std::string path = source_dir() + "/tests/kernels/carried_scratch_rows.py";
  std::string text = read(path);
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, arrays({{512, 256}}))))
    EXPECT_NE(s.transform, "jam_rows") << s.key();
}

// A list of buffers used in turn (`x_sb[i % 2]`): two rows at once get one buffer each; four would
// give rows i and i + 2 the same one (the printed kernel computed the wrong result), so there is no
// site at four (distinct_per_row).
TEST(JamRows, RowsOfABlockNeverShareABufferTheyUseInTurn) {
  std::string path = source_dir() + "/tests/kernels/multibuffer_rows.py";
  std::string text = read(path);
  const auto args = arrays({{512, 256}, {128, 1}});
  std::set<std::string> factors;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "jam_rows") factors.insert(s.params.at("factor"));
  EXPECT_EQ(factors, (std::set<std::string>{"2"}));
}

// A Python list of row tiles completed by an earlier loop (`rows.append(s)`) is read two rows at a
// time by the loop that consumes it (`rows[2*r_blk + 1]`): the consumer's rows go from the Scalar
// Engine back to the Tensor Engine, so it is offered like the same loop reading a block buffer.
// The loop appending to the list is not (F rows would append F tiles per iteration).
TEST(JamRows, RowsReadAListAnEarlierLoopCompleted) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_list_rows_consumer.py";
  std::string text = read(path);
  const auto args = arrays({{128, 512}, {128, 512}, {512, 128}});
  const auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
  const loopnest::Site* jam = nullptr;
  std::set<std::string> anchors;
  for (const auto& s : sites)
    if (s.transform == "jam_rows") {
      anchors.insert(s.anchor);
      if (s.params.at("factor") == "2" && s.anchor == "4/act(exp)#0") jam = &s;
    }
  // The consumer's rows and its P^T blocks (reading `v_blocks[j]`, complete too); not the producer.
  EXPECT_EQ(anchors, (std::set<std::string>{"4/act(exp)#0", "4x4/transpose#0"}));
  ASSERT_TRUE(jam) << "no jam_rows site on the loop reading `rows[r]`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_NE(after.find("data=rows[2*r_blk + 1]"), std::string::npos) << after;
  EXPECT_NE(after.find("rows.append(s)"), std::string::npos) << after;
}

// A mask naming the row (the ragged last row tile guarded by `r * 128 + i_p < M` on every load,
// instruction and store, as library authors write it) is written per row: each copy keeps its
// row's guard, printed from the constraints. Before session 23 any such mask refused the site, so
// a masked kernel's rows never ran together (tests/kernels/masked_scan_rows.py: 192 rows, the
// second tile 64 rows; the result is EverySiteOfTheTestKernelsKeepsTheirResult's).
TEST(JamRows, WritesAMaskUsingTheRowPerCopy) {
  std::string path = source_dir() + "/tests/kernels/masked_scan_rows.py";
  std::string text = read(path);
  auto args = arrays({{192, 1024}, {192, 1024}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  auto sites = loopnest::find_sites(k);
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for r`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  // Row 1's guard: 128 + i_p < 192; row 0's, i_p < 192, holds on every partition, so row 0 is
  // unmasked (the jammed loop had one iteration, r_blk = 0, and is gone; live_mask.h).
  EXPECT_NE(after.find("xt_1 = nl.load(x[128 + i_p, 256*t + i_f], mask=(-64 + i_p < 0))"), std::string::npos) << after;
  EXPECT_NE(after.find("xt_0 = nl.load(x[i_p, 256*t + i_f])\n"), std::string::npos) << after;
  EXPECT_NE(after.find("h_1 = nisa.tensor_tensor_scan("), std::string::npos) << after;
}

namespace {

// A row's result stored through a reshape of it (`res.reshape((128, 4, 128))` written inline in the
// store, a JAX-minded author's way of matching the output's blocked layout): each row's copy
// stores a reshape of its own copy. Before, the copies kept the one view of `res`, which the rows
// no longer bind, so the printed kernel did not lift and the weight-sharing jam was never applied.
TEST(JamRows, EachRowStoresAReshapeOfItsOwnTile) {
  std::string path = "k.py";
  std::string text =
      "import nki\n"
      "import nki.language as nl\n\n\n"
      "@nki.jit\n"
      "def kernel(x, w):\n"
      "    out = nl.ndarray((4, 128, 4, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    for i in nl.affine_range(4):\n"
      "        xt = nl.load(x[i * 128:(i + 1) * 128, :])\n"
      "        wt = nl.load(w[:, :])\n"
      "        res = nl.copy(nl.matmul(xt, wt, transpose_x=True), dtype=x.dtype)\n"
      "        nl.store(out[i], res.reshape((128, 4, 128)))\n"
      "    return out\n";
  auto args = loopnest_test::arrays({{512, 128}, {128, 512}});
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for i`";
  std::string after = loopnest::apply_site(path, text, args, *jam);
  EXPECT_NE(after.find("res_0.reshape((128, 4, 128))"), std::string::npos) << after;
  EXPECT_NE(after.find("res_1.reshape((128, 4, 128))"), std::string::npos) << after;
  EXPECT_EQ(loopnest_test::loads_of(after, args, 1), 2) << after;  // the weight once per two rows
  EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, after, args), loopnest_test::run(path, text, args)), 1e-6);
}

}  // namespace

// Grouped-query attention: query head h reads K / V head h // group (legacy, through a binding
// `kv = h // group`) or h * KH // QH (newer API, inline). Jammed by the group size, the rows of a
// block are one group and read one K / V head: the loads (and K's transpose) are shared, whatever
// the spelling of the quotient.
TEST(JamRows, TheQueryHeadsOfAGroupShareTheirKvLoads) {
  const auto args = arrays({{4, 128, 64}, {2, 128, 64}, {2, 128, 64}});
  for (const char* name : {"grouped_heads_kv.py", "grouped_heads_kv_api.py"}) {
    std::string path = source_dir() + "/tests/kernels/" + name;
    std::string text = read(path);
    EXPECT_EQ(loads_of(text, args, 1), 4) << name;
    EXPECT_EQ(loads_of(text, args, 2), 4) << name;
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
    const loopnest::Site* jam = nullptr;
    for (const auto& s : sites)
      if (s.transform == "jam_rows" && s.params.at("factor") == "2" && !s.params.count("flat_loops")) jam = &s;
    ASSERT_TRUE(jam) << name << ": no jam_rows site by the group size";
    EXPECT_FALSE(jam->params.count("overlap")) << name << ": the site shares work, not only the engines' waiting";
    std::string after = loopnest::apply_site(path, text, args, *jam);
    EXPECT_EQ(loads_of(after, args, 1), 2) << after;
    EXPECT_EQ(loads_of(after, args, 2), 2) << after;
    EXPECT_EQ(loads_of(after, args, 0), 4) << after;  // each query head still loads its own q
  }
}
