// coalesce_stores (src/loopnest/coalesce_stores.cpp): a store inside a loop writing one tile per
// iteration to consecutive blocks of a free dim becomes one store after the loop, the tiles
// assembled in an SBUF buffer. The batched matmul storing each 512-column PSUM tile in three styles
// (tests/kernels/store_rows_{tiles,grid,api}.py) offers the same site; applied, `out` is written
// once per row tile instead of once per column block. Variants that read the destination inside
// the loop, or whose tiles are not contiguous, are refused. That every site keeps the kernel's
// outputs is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's. The same nest with two
// rows jammed into each iteration of the row loop (tests/kernels/store_rows_jammed_*.py: two stores
// of disjoint rows per column block, rhs loaded once per block for both) offers each row's store.
#include <gtest/gtest.h>

#include "corpus.h"
#include "text_edit.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::replace;
using loopnest_test::source_dir;

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/store_rows_" + style + ".py");
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "coalesce_stores") out.push_back(s);
  return out;
}

// How many DMA transfers write the kernel's outputs (each times its loops' trips), and the bytes
// per partition of the largest.
std::pair<int64_t, int64_t> stores_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  int64_t n = 0, widest = 0;
  for (const auto& r : an.ops) {
    const auto& op = r.op();
    if (op.cls != loopnest::OpClass::Store && op.cls != loopnest::OpClass::DmaCopy) continue;
    if (!op.dst || k.tensor(loopnest::storage_of(k, op.dst->tensor)).on_chip()) continue;
    int64_t times = 1;
    for (int l : r.loops) times *= k.loops.at(l).trip().value_or(0);
    n += times;
    auto shape = op.dst->tile_shape();
    int64_t elems = 1;
    for (size_t d = 1; d < shape.size(); ++d) elems *= shape[d].constant();
    widest = std::max(widest, elems * 4);
  }
  return {n, widest};
}

// lhs (2, 256, 64), rhs (2, 64, 2048): 2 batches, 2 row tiles, 4 column blocks of 512.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 256, 64}, {2, 64, 2048}});

TEST(CoalesceStores, FindsTheSameSiteInEveryStyleAndStoresOncePerRowTile) {
  std::string first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = sites_of(text, kArgs);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    EXPECT_EQ(sites[0].params.at("tiles"), "4");
    EXPECT_EQ(sites[0].relieves, std::set<std::string>{"dma"});
    EXPECT_EQ(stores_of(text, kArgs), std::make_pair(int64_t{16}, int64_t{2048}));
    std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
    // 2 batches x 2 row tiles, 8 KiB per partition each.
    EXPECT_EQ(stores_of(after, kArgs), std::make_pair(int64_t{4}, int64_t{8192})) << after;
    EXPECT_TRUE(sites_of(after, kArgs).empty()) << after;
  }
}

TEST(CoalesceStores, ANamedValueTileBecomesTheBuffer) {
  std::string text = kernel_text("tiles");
  replace(text, "                nl.store(out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], value=nl.copy(ps))\n",
          "                res = nl.copy(ps)\n"
          "                nl.store(out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], value=res)\n");
  auto sites = sites_of(text, kArgs);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].key(), sites_of(kernel_text("tiles"), kArgs).at(0).key());
  std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
  EXPECT_NE(after.find("            res = nl.ndarray(shape=(128, n_size // 512 * 512), dtype=nl.float32, buffer=nl.sbuf)\n"
                       "            for ni in nl.affine_range(n_size // 512):\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("                res[:, 512*ni:512*ni + 512] = nl.copy(ps)\n"
                       "            nl.store(out[b, mi * 128:(mi + 1) * 128, :], value=res)\n"),
            std::string::npos)
      << after;
}

TEST(CoalesceStores, RefusesWhenTheLoopReadsTheDestination) {
  // The stored block read back inside `for ni`: with the store after the loop it would read stale data.
  std::string text = kernel_text("api");
  const std::string store =
      "                nisa.dma_copy(dst=out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], src=res)\n";
  replace(text, store,
          store + "                back = nl.ndarray((128, 512), dtype=lhs.dtype, buffer=nl.sbuf)\n"
                  "                nisa.dma_copy(dst=back, src=out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512])\n");
  EXPECT_TRUE(sites_of(text, kArgs).empty());
}

TEST(CoalesceStores, RefusesTilesThatAreNotContiguous) {
  // Every other 512-column block (stride 1024): one store after the loop would write the gaps.
  std::string text = kernel_text("tiles");
  replace(text, "out = nl.ndarray((batch, m_size, n_size)", "out = nl.ndarray((batch, m_size, 2 * n_size)");
  replace(text, "ni * 512:(ni + 1) * 512], value=", "ni * 1024:ni * 1024 + 512], value=");
  EXPECT_TRUE(sites_of(text, kArgs).empty());
}

TEST(CoalesceStores, RefusesAValueReadBeforeItIsWritten) {
  // `res` carried from the previous column block (read before this iteration writes it): one
  // block per iteration would change what that read sees.
  std::string text = kernel_text("api");
  replace(text, "                res = nl.ndarray((128, 512), dtype=lhs.dtype, buffer=nl.sbuf)\n", "");
  replace(text, "            for ni in nl.affine_range(n_size // 512):\n",
          "            res = nl.ndarray((128, 512), dtype=lhs.dtype, buffer=nl.sbuf)\n"
          "            for ni in nl.sequential_range(n_size // 512):\n"
          "                nisa.tensor_copy(dst=lhs_t, src=res[0:64, 0:128])\n");
  EXPECT_TRUE(sites_of(text, kArgs).empty());
}

TEST(CoalesceStores, LeavesTilesAlreadyAtTheSaturatingPayload) {
  // 1024 fp32 columns are 4 KiB per partition, where a DMA already runs at full throughput.
  std::string text = kernel_text("tiles");
  replace(text, "for ni in nl.affine_range(n_size // 512)", "for ni in nl.affine_range(n_size // 1024)");
  replace(text, "rhs_tile[:, ni * 512:(ni + 1) * 512]", "rhs_tile[:, ni * 1024:(ni + 1) * 1024]");
  replace(text, "ni * 512:(ni + 1) * 512], value=", "ni * 1024:(ni + 1) * 1024], value=");
  EXPECT_TRUE(sites_of(text, kArgs).empty());
  // 256 columns (1 KiB) are offered.
  text = kernel_text("tiles");
  replace(text, "for ni in nl.affine_range(n_size // 512)", "for ni in nl.affine_range(n_size // 256)");
  replace(text, "rhs_tile[:, ni * 512:(ni + 1) * 512]", "rhs_tile[:, ni * 256:(ni + 1) * 256]");
  replace(text, "ni * 512:(ni + 1) * 512], value=", "ni * 256:(ni + 1) * 256], value=");
  auto sites = sites_of(text, kArgs);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("tiles"), "8");
}

std::string jammed_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/store_rows_jammed_" + style + ".py");
}

// lhs (2, 512, 64), rhs (2, 64, 2048): 2 batches, 2 iterations of 2 jammed row tiles, 4 column blocks.
const std::vector<loopnest::ArgSpec> kJammedArgs = arrays({{2, 512, 64}, {2, 64, 2048}});

TEST(CoalesceStores, OffersEveryJammedRowsStoreInEveryStyle) {
  std::vector<std::string> first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = jammed_text(style);
    auto sites = sites_of(text, kJammedArgs);
    // One site per row's store: the other row's store of the same iteration is elsewhere in `out`,
    // and the loop's two stores (256 KiB) outweigh its rhs load (128 KiB). (And one for both:
    // OneSiteCoalescesEveryStoreOfTheLoopInEveryStyle.)
    std::erase_if(sites, [](const loopnest::Site& s) { return s.params.count("stores") > 0; });
    ASSERT_EQ(sites.size(), 2u);
    std::vector<std::string> keys = {sites[0].key(), sites[1].key()};
    EXPECT_NE(keys[0], keys[1]);
    if (first.empty()) first = keys;
    EXPECT_EQ(keys, first);
    EXPECT_EQ(sites[0].params.at("tiles"), "4");
    // 2 batches x 2 row iterations x 4 column blocks x 2 rows.
    EXPECT_EQ(stores_of(text, kJammedArgs), std::make_pair(int64_t{32}, int64_t{2048}));
    std::string once = loopnest::apply_site("k.py", text, kJammedArgs, sites[0]);
    // The other row's store is still offered, and applied stores both rows once per row tile.
    auto rest = sites_of(once, kJammedArgs);
    ASSERT_EQ(rest.size(), 1u) << once;
    std::string both = loopnest::apply_site("k.py", once, kJammedArgs, rest[0]);
    EXPECT_EQ(stores_of(both, kJammedArgs), std::make_pair(int64_t{8}, int64_t{8192})) << both;
    EXPECT_TRUE(sites_of(both, kJammedArgs).empty()) << both;
  }
}

// The loop's two stores coalesced in one move: the same kernel as the two one-store moves in turn,
// the same site in every style; a loop with one coalescable store offers no such site.
TEST(CoalesceStores, OneSiteCoalescesEveryStoreOfTheLoopInEveryStyle) {
  std::set<std::string> keys;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = jammed_text(style);
    std::vector<loopnest::Site> all, one;
    for (const auto& s : sites_of(text, kJammedArgs)) (s.params.count("stores") ? all : one).push_back(s);
    ASSERT_EQ(all.size(), 1u);
    ASSERT_EQ(one.size(), 2u);
    EXPECT_EQ(all[0].params.at("stores"), "2");
    EXPECT_EQ(all[0].params.at("tiles"), "4");
    keys.insert(all[0].key());
    std::string both = loopnest::apply_site("k.py", text, kJammedArgs, all[0]);
    EXPECT_EQ(stores_of(both, kJammedArgs), std::make_pair(int64_t{8}, int64_t{8192})) << both;
    EXPECT_TRUE(sites_of(both, kJammedArgs).empty()) << both;
    std::string in_turn = loopnest::apply_site("k.py", text, kJammedArgs, one[0]);
    auto rest = sites_of(in_turn, kJammedArgs);
    ASSERT_EQ(rest.size(), 1u);
    EXPECT_EQ(loopnest::apply_site("k.py", in_turn, kJammedArgs, rest[0]), both);
  }
  EXPECT_EQ(keys.size(), 1u);
  for (const char* style : {"tiles", "grid", "api"})
    for (const auto& s : sites_of(kernel_text(style), kArgs)) EXPECT_EQ(s.params.count("stores"), 0u) << style;
}

TEST(CoalesceStores, RefusesJammedRowsWhoseStoresOverlapInOneIteration) {
  // The second row's store starting 64 rows in: both stores of one `mi` write rows 64..127, and
  // which lands last would change with either store moved after the loop.
  std::string text = jammed_text("tiles");
  replace(text, "out[b, mi * 256 + 128:mi * 256 + 256, ", "out[b, mi * 256 + 64:mi * 256 + 192, ");
  EXPECT_TRUE(sites_of(text, kJammedArgs).empty());
}

// The jammed kernel with a bias (B, M, N) added to the result of the first `rows` rows, each
// loading its 512-column block of it per iteration of `for ni` (256 KiB, as much as a row stores).
std::string with_bias(int rows) {
  std::string text = jammed_text("tiles");
  replace(text, "def kernel(lhs, rhs):", "def kernel(lhs, rhs, bias):");
  const char* row_start[] = {"mi * 256:mi * 256 + 128", "mi * 256 + 128:mi * 256 + 256"};
  const char* value[] = {"value=nl.copy(ps))", "value=nl.copy(ps_1))"};
  const char* psum[] = {"ps", "ps_1"};
  for (int r = 0; r < rows; ++r) {
    std::string name = "bias_" + std::to_string(r);
    std::string store = std::string("                nl.store(out[b, ") + row_start[r];
    replace(text, store,
            "                " + name + " = nl.load(bias[b, " + row_start[r] + ", ni * 512:(ni + 1) * 512])\n" + store);
    replace(text, value[r], std::string("value=nl.add(") + psum[r] + ", " + name + "))");
  }
  return text;
}

const std::vector<loopnest::ArgSpec> kBiasArgs = arrays({{2, 512, 64}, {2, 64, 2048}, {2, 512, 2048}});

TEST(CoalesceStores, WeighsTheLoopsStoresTogetherAgainstItsLoads) {
  // One row's bias: rhs 128 KiB + bias 256 KiB loaded against two stores of 256 KiB. Each store
  // alone moves less than the loop's other DMA; the stores together move more.
  EXPECT_EQ(sites_of(with_bias(1), kBiasArgs).size(), 2u) << with_bias(1);
  // Both rows' bias: 640 KiB loaded against 512 KiB stored, a streaming loop whose loads overlap
  // the stores already.
  EXPECT_TRUE(sites_of(with_bias(2), kBiasArgs).empty()) << with_bias(2);
}

// The overlap test of two accesses of one iteration against the test across iterations, on the
// jammed rows' two stores of `out`.
TEST(MayOverlap, ComparesTheSharedLoopsValueNotItsRange) {
  loopnest::Kernel k = loopnest::lift_source("k.py", jammed_text("tiles"), kJammedArgs);
  loopnest::Analysis an(k);
  std::vector<const loopnest::OpRef*> stores;
  for (const auto& r : an.ops)
    if (r.op().cls == loopnest::OpClass::Store) stores.push_back(&r);
  ASSERT_EQ(stores.size(), 2u);
  const loopnest::Access &row0 = *stores[0]->op().dst, &row1 = *stores[1]->op().dst;
  ASSERT_EQ(stores[0]->loops.size(), 3u);  // b, mi, ni
  int b = stores[0]->loops[0], mi = stores[0]->loops[1], ni = stores[0]->loops[2];
  loopnest::Ranges ranges = k.ranges();
  // Rows 256*mi.. and 256*mi + 128.. of different `mi` meet nowhere either, but the interval of each
  // over every `mi` does: across iterations the test cannot tell.
  EXPECT_TRUE(loopnest::may_overlap_across(k, row0, row1, ranges));
  EXPECT_FALSE(loopnest::may_overlap_within(k, row0, row1, ranges, {b, mi}));
  EXPECT_FALSE(loopnest::may_overlap_within(k, row0, row1, ranges, {b, mi, ni}));
  // A store against itself: the same elements in one iteration of every loop, and with `ni` free
  // (its value taken independently by each) the same block where the two values are equal.
  EXPECT_TRUE(loopnest::may_overlap_within(k, row0, row0, ranges, {b, mi, ni}));
  EXPECT_TRUE(loopnest::may_overlap_within(k, row0, row0, ranges, {b, mi}));
  EXPECT_TRUE(loopnest::may_overlap_across(k, row0, row0, ranges));
  // Unbounded (no range for the loops): undecided, so conservatively true unless the shared
  // variables cancel to a constant distance.
  EXPECT_TRUE(loopnest::may_overlap_across(k, row0, row1, {}));
  EXPECT_FALSE(loopnest::may_overlap_within(k, row0, row1, {}, {b, mi, ni}));
}

}  // namespace
