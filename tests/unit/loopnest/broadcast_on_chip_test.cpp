// broadcast_on_chip (src/loopnest/broadcast_on_chip.cpp): a DMA load that copies one HBM row onto
// every partition (a zero-stride partition index, however spelled) becomes a load of the row and a
// partition broadcast on chip. The same site in three spellings; afterwards the row is loaded onto
// one partition and the site is gone. That every site keeps the result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's; the printed kernels are
// GoldenRewrites' (row_broadcast_{grid,api}.broadcast_on_chip).
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 512}, {4, 512}});

std::vector<loopnest::Site> broadcasts(const std::string& path, const std::string& text,
                                       const std::vector<loopnest::ArgSpec>& args = kArgs) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "broadcast_on_chip") out.push_back(s);
  return out;
}

// The partition counts of the tiles the kernel loads from its argument `param`.
std::vector<int64_t> loaded_partitions(const std::string& path, const std::string& text, size_t param) {
  loopnest::Kernel k = loopnest::lift_source(path, text, kArgs);
  const int src = k.params.at(param).tensor;
  loopnest::Analysis an(k);
  std::vector<int64_t> out;
  for (const auto& r : an.ops) {
    const loopnest::Op& op = r.op();
    if (op.engine != loopnest::Engine::Dma || !op.dst) continue;
    for (const auto* a : loopnest::reads(op))
      if (loopnest::storage_of(k, a->tensor) == src) out.push_back(op.dst->tile_shape().at(0).constant());
  }
  return out;
}

TEST(BroadcastOnChip, EverySpellingOfARowOnAllPartitionsIsOneSiteLoadingTheRowOnce) {
  for (const char* name : {"row_broadcast_grid.py", "row_broadcast_api.py", "row_broadcast_free_dim.py"}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    const std::string text = read(path);
    EXPECT_EQ(loaded_partitions(path, text, 1), std::vector<int64_t>{128}) << name;
    auto sites = broadcasts(path, text);
    ASSERT_EQ(sites.size(), 1u) << name;
    EXPECT_EQ(sites[0].anchor, "2x4/load#0") << name;
    EXPECT_EQ(sites[0].params.at("loads"), "1") << name;
    EXPECT_EQ(sites[0].relieves, (std::set<std::string>{"dma", "dve"})) << name;  // [128, 512] fp32: one bank
    std::string after = loopnest::apply_site(path, text, kArgs, sites[0]);
    EXPECT_EQ(loaded_partitions(path, after, 1), std::vector<int64_t>{1}) << after;
    EXPECT_NE(after.find("broadcast_to("), std::string::npos) << after;
    EXPECT_TRUE(broadcasts(path, after).empty()) << after;
  }
}

// Rows wider than a PSUM bank: the plain site, and one that narrows the kernel's width constant to
// a bank first (TF 1024 -> 512), one move; the rows then fit a bank and no site of either kind is left.
TEST(BroadcastOnChip, RowsWiderThanABankAreAlsoOfferedWithTheWidthConstantNarrowedToABank) {
  const std::string path = source_dir() + "/tests/kernels/row_broadcast_wide.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 2048}, {4, 2048}});
  std::vector<loopnest::Site> sites = broadcasts(path, text, args);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].params.count("var"), 0u);
  EXPECT_EQ(sites[0].relieves, std::set<std::string>{"dma"});  // 4 KiB rows: copied out of PSUM
  EXPECT_EQ(sites[1].params.at("var"), "TF");
  EXPECT_EQ(sites[1].params.at("value"), "512");
  EXPECT_EQ(sites[1].relieves, (std::set<std::string>{"dma", "dve"}));
  std::string after = loopnest::apply_site(path, text, args, sites[1]);
  EXPECT_NE(after.find("    TF = 512\n"), std::string::npos) << after;
  EXPECT_NE(after.find("shape=(128, 512))"), std::string::npos) << after;
  EXPECT_TRUE(broadcasts(path, after, args).empty()) << after;
}

// The same with the width a module constant computed from another (`CHUNK = WIDTH // 2`) that the
// kernel only divides the row by, as a researcher's port writes it (held-out author50's mamba:
// `SEQ_CHUNK = SEQ_LEN // 4`, 1792 columns): the narrowing edits the module line to a literal.
TEST(BroadcastOnChip, NarrowsAModuleWidthConstantTheKernelOnlyDividesBy) {
  const std::string path = source_dir() + "/tests/kernels/row_broadcast_module_width.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 2048}, {4, 2048}});
  std::vector<loopnest::Site> sites = broadcasts(path, text, args);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[1].params.at("var"), "CHUNK");
  EXPECT_EQ(sites[1].params.at("value"), "512");
  std::string after = loopnest::apply_site(path, text, args, sites[1]);
  EXPECT_NE(after.find("\nCHUNK = 512\n"), std::string::npos) << after;
  EXPECT_NE(after.find("shape=(128, 512))"), std::string::npos) << after;
}

// Rows broadcast on chip already but wider than a bank (a researcher's mamba: `nl.broadcast_to(row,
// shape=(128, SEQ_CHUNK))` with 1792-column chunks, held-out author50): the width constant narrowed
// until each broadcast row fits one bank, the module line alone edited; none is left after it.
TEST(BroadcastOnChip, NarrowsTheWidthOfBroadcastsOnChipWiderThanABank) {
  const std::string path = source_dir() + "/tests/kernels/row_broadcast_on_chip_wide.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 2048}, {4, 2048}});
  std::vector<loopnest::Site> sites = broadcasts(path, text, args);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("var"), "CHUNK");
  EXPECT_EQ(sites[0].params.at("value"), "512");
  EXPECT_EQ(sites[0].relieves, std::set<std::string>{"dve"});
  std::string after = loopnest::apply_site(path, text, args, sites[0]);
  std::string want = text;
  want.replace(want.find("\nCHUNK = WIDTH // 2\n") + 1, 18, "CHUNK = 512");
  EXPECT_EQ(after, want);
  EXPECT_TRUE(broadcasts(path, after, args).empty()) << after;
}

// The same with the width an entry of a module dict of sizes, read by the kernel (`P, F = TILE["P"],
// TILE["F"]`) and by a helper's default (`cols=TILE["F"]`): the dict's entry is narrowed, the one
// edit every reader follows (held-out author55's mamba had no site), and the result is kept.
TEST(BroadcastOnChip, NarrowsAWidthKeptInAModuleDictOfSizes) {
  const std::string path = source_dir() + "/tests/kernels/row_broadcast_dict_sizes.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 2048}, {4, 2048}});
  std::vector<loopnest::Site> sites = broadcasts(path, text, args);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("var"), "F");
  EXPECT_EQ(sites[0].params.at("value"), "512");
  std::string after = loopnest::apply_site(path, text, args, sites[0]);
  std::string want = text;
  want.replace(want.find("TILE = {\"P\": 128, \"F\": 1024}"), 28, "TILE = {\"P\": 128, \"F\": 512}");
  EXPECT_EQ(after, want);
  EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, text, args), 1u);
}

// The width a default of a parameter of the function that does the work, which no call passes: a
// kernel launched on a grid by a wrapper passing the arrays only (`_rows[C // 128](x, w)` of
// `def _rows(x, w, chunk=1024)`, held-out author57's mamba: `seq_tile=1024`, no site before), a
// newer-API helper's `cols=1024`. The default is narrowed to a bank, the one edit; the result is
// kept, and no broadcast site is left.
TEST(BroadcastOnChip, NarrowsAWidthGivenAsTheDefaultOfALaunchedKernelOrAHelper) {
  const auto args = arrays({{256, 2048}, {4, 2048}});
  for (auto [name, def] : {std::pair{"row_broadcast_launch_default.py", "def _rows(x, w, chunk=1024)"},
                           std::pair{"row_broadcast_helper_default_api.py", "def _block(x, w, out, r0, cols=1024)"}}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    const std::string text = read(path);
    std::vector<loopnest::Site> sites = broadcasts(path, text, args);
    ASSERT_EQ(sites.size(), 1u) << name;
    const std::string var = sites[0].params.at("var");
    EXPECT_EQ(var, name == std::string("row_broadcast_launch_default.py") ? "chunk" : "cols") << name;
    EXPECT_EQ(sites[0].params.at("value"), "512") << name;
    EXPECT_EQ(sites[0].relieves, std::set<std::string>{"dve"}) << name;
    std::string after = loopnest::apply_site(path, text, args, sites[0]);
    std::string want = text;
    std::string edited = def;
    edited.replace(edited.find("=1024"), 5, "=512");
    want.replace(want.find(def), std::string(def).size(), edited);
    EXPECT_EQ(after, want) << name;
    EXPECT_TRUE(broadcasts(path, after, args).empty()) << after;
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, text, args), 2u) << name;
  }
}

// A row loaded once and broadcast on chip already, a load whose partitions step (a plain tile), and
// a load that casts: no site.
TEST(BroadcastOnChip, OnlyALoadCopyingOneRowOntoEveryPartitionIsASite) {
  auto kernel = [](const std::string& load) {
    return "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\ndef kernel(x, w):\n"
           "    out = nl.ndarray((256, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
           "    for ct in nl.affine_range(2):\n"
           "        x_t = nl.load(x[ct * 128:(ct + 1) * 128, :])\n"
           "        for s in nl.affine_range(4):\n"
           "            w_t = " + load + "\n"
           "            nl.store(out[ct * 128:(ct + 1) * 128, :], value=nl.multiply(x_t, w_t))\n"
           "    return out\n";
  };
  EXPECT_EQ(broadcasts("k.py", kernel("nl.load(w[s + 0 * nl.arange(128)[:, None], nl.arange(512)[None, :]])")).size(), 1u);
  EXPECT_TRUE(broadcasts("k.py", kernel("nl.load(w[s:s + 1, :]).broadcast_to((128, 512))")).empty());
  EXPECT_TRUE(broadcasts("k.py", kernel("nl.load(x[ct * 128:(ct + 1) * 128, :])")).empty());
  EXPECT_TRUE(broadcasts("k.py", kernel("nl.load(w[s + 0 * nl.arange(128)[:, None], nl.arange(512)[None, :]], "
                                        "dtype=nl.bfloat16)"))
                  .empty());
}

}  // namespace
