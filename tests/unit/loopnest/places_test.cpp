// One move at every jammed copy of a statement (src/loopnest/places.cpp): after jam_rows a move on
// one row's statement is offered once for all the rows (`places=N`), found and applied copy by copy;
// statements that only look alike (an author's slots of one buffer, two nests of the same shape) stay
// sites of their own. That every such site keeps the kernel's result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's (tests/kernels/kv_group_rows_jammed.py,
// rows_jammed_nests.py); goldens kv_group_rows_jammed.fold_activation_reduce and
// rows_jammed_nests.pipeline_prep_on_chip.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/places.h"
#include "loopnest/transform.h"

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

namespace {

struct TestKernel {
  std::string path, text;
  std::vector<loopnest::ArgSpec> args;
  loopnest::Kernel form() const { return loopnest::lift_source(path, text, args); }
};

TestKernel jammed_heads() {
  std::string path = source_dir() + "/tests/kernels/kv_group_rows_jammed.py";
  return {path, read(path), arrays({{2, 128, 2, 128}, {256, 128}, {256, 128}})};
}

TestKernel jammed_nests() {
  std::string path = source_dir() + "/tests/kernels/rows_jammed_nests.py";
  return {path, read(path), arrays({{2, 128, 2, 128}, {512, 128}, {512, 128}})};
}

std::vector<loopnest::Site> sites_of(const TestKernel& k, const std::string& transform) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(k.form()))
    if (s.transform == transform) out.push_back(s);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Two heads jammed: fold_activation_reduce was offered once per head (`act(exp)#0`, `#1`), each
// gaining half; now one site sums both heads' rows in their activations. The agent gives a site by
// its anchor (no node id): applying finds the group again.
TEST(Places, OneSiteRewritesTheStatementInEveryJammedRow) {
  TestKernel k = jammed_heads();
  auto sites = sites_of(k, "fold_activation_reduce");
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("places"), "2");
  EXPECT_EQ(sites[0].anchor, "2/act(exp)#0");
  std::string after = loopnest::apply_site(k.path, k.text, k.args, sites[0]);
  EXPECT_EQ(count(after, "nisa.activation_reduce("), 2u) << after;
  EXPECT_EQ(count(after, "nisa.tensor_reduce(nl.add"), 0u) << after;
  loopnest::Site by_anchor = sites[0];
  by_anchor.node = -1;
  EXPECT_EQ(loopnest::apply_site(k.path, k.text, k.args, by_anchor), after);
  // Nothing left to fold.
  auto again = loopnest::lift_source(k.path, after, k.args);
  for (const auto& s : loopnest::find_sites(again)) EXPECT_NE(s.transform, "fold_activation_reduce") << s.key();
}

// A move between engines balances them: one row's scaling moved may beat both (one place's site
// stays beside the site at both); the second row's own site, the first's by symmetry, goes.
TEST(Places, AMoveBetweenEnginesKeepsOneRowsOwnSite) {
  TestKernel k = jammed_heads();
  std::map<std::string, std::set<std::string>> by_move;  // anchor + engine -> places ("1" alone)
  for (const auto& s : sites_of(k, "engine_assign")) {
    auto p = s.params.find("places");
    by_move[s.anchor + " " + s.params.at("engine")].insert(p == s.params.end() ? "1" : p->second);
  }
  EXPECT_EQ(by_move["2/ts(multiply)#0 scalar"], (std::set<std::string>{"1", "2"}));
  EXPECT_EQ(by_move["2/ts(multiply)#2 scalar"], (std::set<std::string>{"1", "2"}));
  EXPECT_EQ(by_move["2/ts(multiply)#2 gpsimd"], (std::set<std::string>{"1", "2"}));
  EXPECT_FALSE(by_move.count("2/ts(multiply)#1 scalar"));
  EXPECT_FALSE(by_move.count("2/ts(multiply)#3 scalar"));
  for (const auto& s : sites_of(k, "engine_assign")) {
    std::string after = loopnest::apply_site(k.path, k.text, k.args, s);
    EXPECT_EQ(count(after, "engine=nisa."), s.params.count("places") ? 2u : 1u) << s.key() << "\n" << after;
  }
}

// Rows whose key loops were copied whole (jam_rows overlap=engines): the two loops are copies, and
// the moves on them are one site each (pipeline_prep, a second jam).
TEST(Places, RowsWhoseNestsWereCopiedWhole) {
  TestKernel k = jammed_nests();
  auto form = k.form();
  std::vector<int> key_loops;
  const loopnest::Node* query_loop = nullptr;  // the kernel's last loop
  for (const auto& n : form.body)
    if (n.kind == loopnest::NodeKind::Loop) query_loop = &n;
  ASSERT_TRUE(query_loop);
  for (const auto& n : query_loop->body)
    if (n.kind == loopnest::NodeKind::Loop) key_loops.push_back(n.id);
  ASSERT_EQ(key_loops.size(), 2u);
  EXPECT_TRUE(loopnest::copies_of_one_statement(form, key_loops[0], key_loops[1]));
  auto prep = sites_of(k, "pipeline_prep");
  bool both = false;
  for (const auto& s : prep) {
    EXPECT_NE(s.anchor, "2x4/transpose#1") << s.key();
    if (s.params.count("source") && s.params.count("places")) {
      both = true;
      std::string after = loopnest::apply_site(k.path, k.text, k.args, s);
      // Each row's transposes now run in a loop of their own before its matmuls.
      EXPECT_EQ(count(after, "for t"), 5u) << after;
    }
  }
  EXPECT_TRUE(both);
}

// The statements of the two rows correspond one to one; a row's load and the K tile's load do not.
TEST(Places, CopiesAreTheSameOperationsOnTheRowsOwnTiles) {
  TestKernel k = jammed_heads();
  auto form = k.form();
  loopnest::Analysis an(form);
  auto node_of = [&](const std::string& anchor) {
    for (const auto& r : an.ops)
      if (loopnest::op_signature(form, an, r) == anchor) return r.node->id;
    return -1;
  };
  // The K / V loop runs 2 tiles too: its loads are load#0 and #1, the heads' q loads #2 and #3.
  const int q0 = node_of("2/load#2"), q1 = node_of("2/load#3"), k_tile = node_of("2/load#0");
  ASSERT_GE(q0, 0);
  EXPECT_TRUE(loopnest::copies_of_one_statement(form, q0, q1));
  EXPECT_FALSE(loopnest::copies_of_one_statement(form, q0, k_tile));
  EXPECT_TRUE(loopnest::copies_of_one_statement(form, node_of("2/act(exp)#0"), node_of("2/act(exp)#1")));
  EXPECT_FALSE(loopnest::copies_of_one_statement(form, node_of("2/ts(multiply)#0"), node_of("2/ts(multiply)#2")));
}

// A generated kernel's temporaries in slots of one buffer (`v6[i0, 0]`, `v6[i0, 3]`: x1 * cos and
// x1 * sin) and a driver's two nests of the same shape over other data are no copies of one
// statement: their sites stay one per place.
TEST(Places, StatementsThatOnlyLookAlikeKeepTheirOwnSites) {
  for (const char* file : {"nkibench/styles/legacy_grid/rope_single_freq_apply_B1_H64_N4096_D128_0.py",
                           "nkibench/styles/decomposed/swiglu_M4096_N3072_K1024_0.py",
                           "nkibench/styles/legacy_grid/adamw_M10944_N2048_0.py"}) {
    const loopnest_test::CorpusKernel* k = nullptr;
    static const auto kernels = loopnest_test::corpus();
    for (const auto& c : kernels)
      if (c.path == file) k = &c;
    ASSERT_TRUE(k) << file;
    int engine_or_fusion = 0;
    for (const auto& s : loopnest::find_sites(loopnest::lift_source(k->path, k->text, k->args))) {
      EXPECT_FALSE(s.params.count("places")) << file << ": " << s.key();
      engine_or_fusion += s.transform == "engine_assign" || s.transform == "fuse_nests";
    }
    EXPECT_GE(engine_or_fusion, 2) << file;
  }
}

}  // namespace
