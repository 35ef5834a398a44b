// A kernel with an indirect (index-tile) DMA: its rows are read from a tile at run time, so the
// access has no affine form. A gather (a load whose source rows an index tile picks, nki-language.md
// 7.1) lifts as a load whose source operand is the whole HBM tensor (the dependences see it read any
// row) and whose index tile is an operand; its statement is frozen, printed as written (also when
// every other operation is regenerated), and no transformation rewrites it. A scatter (a store
// whose destination rows an index tile picks) lifts the same way with the whole HBM tensor as its
// dst, a may-write: the dependences see every row written, no move takes it for a kill. Any other
// place of an index tile (an atomic scatter-add, a gathered view as a compute operand or a store's
// value) is refused by name with the caret on the subscript, and never crashes.
#include <gtest/gtest.h>

#include <set>

#include "corpus.h"
#include "loopnest/analysis.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

loopnest::ArgSpec array(std::vector<int64_t> shape, std::string dtype = "float32") {
  loopnest::ArgSpec a;
  a.shape = std::move(shape);
  a.dtype = std::move(dtype);
  return a;
}

std::string lift_error(const std::string& path, const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  try {
    loopnest::lift_source(path, text, args);
  } catch (const loopnest::LiftError& e) {
    return e.render();
  }
  return "";
}

std::string lift_error(const std::string& name, const std::vector<loopnest::ArgSpec>& args) {
  const std::string path = source_dir() + "/tests/kernels/" + name;
  return lift_error(path, read(path), args);
}

struct Gather {
  const loopnest::Node* node = nullptr;
  const loopnest::Op* op = nullptr;
};

std::vector<Gather> gathers_of(const loopnest::Kernel& k) {
  std::vector<Gather> out;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops)
      if (loopnest::gathers(op)) out.push_back({&n, &op});
  });
  return out;
}

TEST(LoopNestLift, AnIndirectGatherLiftsAsAFrozenLoadOfTheWholeTable) {
  const std::string path = source_dir() + "/tests/kernels/gather_rows.py";
  const std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, {array({300, 64}), array({256, 1}, "int32")});
  auto g = gathers_of(k);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(g[0].node->frozen);
  EXPECT_EQ(g[0].op->api, "nl.load");
  const loopnest::Arg* src = g[0].op->arg("src");
  ASSERT_NE(src, nullptr);
  EXPECT_EQ(k.tensor(src->value.access.tensor).name, "table");
  EXPECT_TRUE(loopnest::accesses_whole(k, src->value.access));  // any row may be read
  const loopnest::Arg* idx = g[0].op->arg(loopnest::kGatherIndex);
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(k.tensor(idx->value.access.tensor).name, "idx");
  // The gathered tile has the index tile's partitions and the view's free size.
  ASSERT_GE(g[0].op->result, 0);
  EXPECT_EQ(k.tensor(g[0].op->result).shape, (std::vector<loopnest::IExpr>{loopnest::IExpr(128), loopnest::IExpr(64)}));
  // The index tile's load is read by the gather: a true dependence the analysis sees.
  loopnest::Analysis an(k);
  auto readers = an.readers(k, idx->value.access.tensor);
  EXPECT_TRUE(std::any_of(readers.begin(), readers.end(), [&](const loopnest::OpRef* r) { return &r->op() == g[0].op; }));
  // Printed back as written, and copied as written when every other statement is regenerated.
  EXPECT_EQ(loopnest::emit(k), text);
  std::string regenerated = loopnest::emit(k, {.regenerate = true});
  EXPECT_NE(regenerated.find("nl.load(table[idx[i_p, 0], i_f])"), std::string::npos) << regenerated;
  // No transformation rewrites it: every site applies and prints the gather unchanged.
  for (const auto& site : loopnest::find_sites(k)) {
    std::string out;
    try {
      out = loopnest::apply_site(path, text, {array({300, 64}), array({256, 1}, "int32")}, site);
    } catch (const loopnest::TransformError&) {
      continue;  // a refusal by the move's own rules is fine; a crash is not
    }
    EXPECT_NE(out.find("table[idx[i_p, 0], i_f]"), std::string::npos) << site.key() << "\n" << out;
  }
}

TEST(LoopNestLift, ADmaCopyGatherLiftsAsTheSame) {
  auto err = lift_error("gather_rows_isa.py", {array({400, 32})});
  EXPECT_EQ(err, "");
}

TEST(LoopNestLift, AnIndirectScatterAddIsRefusedByNameAtItsSubscript) {
  std::string err =
      lift_error("scatter_add_rows.py", {array({256, 32}), array({256, 32}), array({256, 1}, "int32")});
  // nl.atomic_rmw is no API of the form: the call is refused by name (its gathered destination
  // is accepted as an argument, and would be refused as anything but a load's source).
  EXPECT_NE(err.find("cannot lift the call of 'nl.atomic_rmw'"), std::string::npos) << err;
  EXPECT_NE(err.find("scatter_add_rows.py:19:"), std::string::npos) << err;
  EXPECT_NE(err.find("^~"), std::string::npos) << err;
}

const char* kHead =
    "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n\n"
    "@nki.jit\ndef kernel(x):\n"
    "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
    "    i_p = nl.arange(128)[:, None]\n"
    "    i_f = nl.arange(64)[None, :]\n"
    "    idx = nisa.iota(2 * i_p, dtype=nl.int32)\n";

TEST(LoopNestLift, AnIndexTileAnywhereButADmasHbmRowsIsRefusedByName) {
  std::string scatter = std::string(kHead) + "    nl.store(out[idx, i_f], value=nl.load(x[i_p, i_f]))\n    return out\n";
  EXPECT_EQ(lift_error("k.py", scatter, {array({256, 64})}), "");
  // A gathered view as the value a store writes (not a DMA's source): refused by name.
  std::string value = std::string(kHead) + "    nl.store(out, value=x[idx, i_f])\n    return out\n";
  std::string err = lift_error("k.py", value, {array({256, 64})});
  EXPECT_NE(err.find("'x[idx, i_f]': an indirect (index-tile) access as 'value' of nl.store"), std::string::npos) << err;
  // An index tile on a free dim (err_indirect_indices_free_dim) or indexing an on-chip tile.
  std::string free_dim = std::string(kHead) + "    t = nl.load(x[i_p, idx])\n    nl.store(out, value=t)\n    return out\n";
  err = lift_error("k.py", free_dim, {array({256, 256})});
  EXPECT_NE(err.find("on a dim after the view's first"), std::string::npos) << err;
  std::string on_chip = std::string(kHead) + "    t = nl.load(x[0:128, :])\n    u = nl.copy(t[idx, i_f])\n"
                                              "    nl.store(out, value=u)\n    return out\n";
  err = lift_error("k.py", on_chip, {array({256, 64})});
  EXPECT_NE(err.find("an indirect (index-tile) access"), std::string::npos) << err;
}

std::vector<Gather> scatters_of(const loopnest::Kernel& k) {
  std::vector<Gather> out;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops)
      if (loopnest::scatters(op)) out.push_back({&n, &op});
  });
  return out;
}

// tests/kernels/scatter_rows.py: out = base (row tile by row tile), then rows of updates stored to
// the rows labels name. The scatter writes only those rows: taken for a write of the whole output
// (a kill), a move could drop or reorder the copy of base, and the rows no label names would be
// garbage.
TEST(LoopNestLift, AnIndirectScatterLiftsAsAFrozenMayWriteOfTheWholeOutput) {
  const std::string path = source_dir() + "/tests/kernels/scatter_rows.py";
  const std::string text = read(path);
  const std::vector<loopnest::ArgSpec> args = {array({256, 32}), array({256, 32}), array({256, 1}, "int32")};
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  auto s = scatters_of(k);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(gathers_of(k).empty());
  EXPECT_TRUE(s[0].node->frozen);
  EXPECT_EQ(s[0].op->api, "nl.store");
  ASSERT_TRUE(s[0].op->dst.has_value());
  EXPECT_EQ(k.tensor(s[0].op->dst->tensor).name, "out");
  EXPECT_TRUE(loopnest::accesses_whole(k, *s[0].op->dst));  // any row may be written
  const loopnest::Arg* idx = s[0].op->arg(loopnest::kScatterIndex);
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(k.tensor(idx->value.access.tensor).name, "idx");
  // The dependences: the index tile's load and the stored rows are read by the scatter; the copy
  // of base and the scatter both write `out` and may touch the same rows.
  loopnest::Analysis an(k);
  auto idx_readers = an.readers(k, idx->value.access.tensor);
  EXPECT_TRUE(std::any_of(idx_readers.begin(), idx_readers.end(), [&](const loopnest::OpRef* r) { return &r->op() == s[0].op; }));
  auto writers = an.writers(k, s[0].op->dst->tensor);
  ASSERT_EQ(writers.size(), 2u);
  const loopnest::OpRef* copy = &writers[0]->op() == s[0].op ? writers[1] : writers[0];
  EXPECT_TRUE(loopnest::may_overlap_across(k, *copy->op().dst, *s[0].op->dst, k.ranges()));
  // Printed back as written, and copied as written when every other statement is regenerated.
  EXPECT_EQ(loopnest::emit(k), text);
  std::string regenerated = loopnest::emit(k, {.regenerate = true});
  EXPECT_NE(regenerated.find("nl.store(out[idx[i_p, 0], i_f], value=rows)"), std::string::npos) << regenerated;
  // Every site applies or is refused by its move's rules, and keeps the scatter and the copy.
  for (const auto& site : loopnest::find_sites(k)) {
    std::string out;
    try {
      out = loopnest::apply_site(path, text, args, site);
    } catch (const loopnest::TransformError&) {
      continue;
    }
    EXPECT_NE(out.find("nl.store(out[idx[i_p, 0], i_f], value=rows)"), std::string::npos) << site.key() << "\n" << out;
    EXPECT_NE(out.find("base[t * 128 + i_p, i_f]"), std::string::npos) << site.key() << "\n" << out;
  }
}

// A scatter into an HBM scratch read back by the next nest: the round trip is no store of the
// region the load reads (its dst is all of the scratch, its rows data), so neither forward_scratch
// nor fuse_nests takes it; the same kernel with a plain store is offered fuse_nests.
TEST(LoopNestLift, AScatterIntoAScratchIsNoRoundTripToForward) {
  auto kernel = [](const std::string& rows) {
    return std::string(
               "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n\n"
               "@nki.jit\ndef kernel(x):\n"
               "    out = nl.ndarray((256, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
               "    scratch = nl.ndarray((2, 128, 64), dtype=x.dtype, buffer=nl.hbm)\n"
               "    i_p = nl.arange(128)[:, None]\n"
               "    i_f = nl.arange(64)[None, :]\n"
               "    rev = nisa.iota(127 - i_p, dtype=nl.int32)\n"
               "    for t in nl.affine_range(2):\n"
               "        a = nl.load(x[t * 128 + i_p, i_f])\n"
               "        b = nl.exp(a)\n"
               "        nl.store(scratch[t, ") + rows + ", i_f], value=b)\n"
               "    for t in nl.affine_range(2):\n"
               "        c = nl.load(scratch[t])\n"
               "        nl.store(out[t * 128 + i_p, i_f], value=c)\n"
               "    return out\n";
  };
  auto moves = [&](const std::string& text) {
    loopnest::Kernel k = loopnest::lift_source("k.py", text, {array({256, 64})});
    std::set<std::string> names;
    for (const auto& site : loopnest::find_sites(k)) names.insert(site.key().substr(0, site.key().find(' ')));
    return names;
  };
  auto scatter = moves(kernel("rev[i_p, 0]"));
  EXPECT_FALSE(scatter.count("forward_scratch"));
  EXPECT_FALSE(scatter.count("fuse_nests"));
  auto plain = moves(kernel("i_p"));
  EXPECT_TRUE(plain.count("fuse_nests") || plain.count("forward_scratch"));
}

}  // namespace
