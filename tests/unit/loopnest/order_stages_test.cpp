// order_stages (src/loopnest/order_stages.cpp): a loop nest written after other rows' nests it
// commutes with moves right after the nest producing what it reads. Two styles of the construct
// jam_rows' overlap=engines leaves (tests/kernels/staged_rows_pv.py, legacy API, two rows;
// staged_rows_pv_api.py, newer API, four rows in slots of one buffer), and the dependences that
// refuse it: a flow through SBUF, an anti and an output dependence, one through a PSUM tile, one
// through HBM (a store and a load), a declaration passed.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::replace;
using loopnest_test::run;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
  int rows;
  // The text of row r's transpose and matmul (the first line of each nest's body).
  std::string (*transpose)(int r);
  std::string (*matmul)(int r);
};

std::string legacy_transpose(int r) { return "p_t_" + std::to_string(r) + "[t] = nl.copy(nisa.nc_transpose("; }
std::string legacy_matmul(int r) { return "acc_" + std::to_string(r) + " += nisa.nc_matmul("; }
std::string api_transpose(int r) { return "nisa.nc_transpose(dst=pt_ps, data=p_sb[:, " + std::to_string(r) + ","; }
std::string api_matmul(int r) { return "nisa.nc_matmul(dst=o_ps_" + std::to_string(r) + ","; }

std::vector<Case> cases() {
  return {{"/tests/kernels/staged_rows_pv.py", arrays({{2, 2, 128, 512}, {512, 128}}), 2, legacy_transpose,
           legacy_matmul},
          {"/tests/kernels/staged_rows_pv_api.py", arrays({{1, 4, 128, 512}, {512, 128}}), 4, api_transpose,
           api_matmul}};
}

std::vector<loopnest::Site> sites_of(const std::string& path, const std::string& text,
                                     const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "order_stages") out.push_back(s);
  return out;
}

size_t at(const std::string& text, const std::string& what) {
  auto p = text.find(what);
  EXPECT_NE(p, std::string::npos) << what << "\n" << text;
  return p;
}

TEST(OrderStages, EachRowsMatmulsMoveRightAfterItsTransposes) {
  for (const auto& c : cases()) {
    std::string path = source_dir() + c.file;
    std::string text = read(path);
    auto sites = sites_of(path, text, c.args);
    ASSERT_EQ(sites.size(), 1u) << c.file;
    // Every row's matmul nest but the last passes the later rows' transposes (the last is right
    // after its own once the others moved).
    EXPECT_EQ(sites[0].params.at("stages"), std::to_string(c.rows - 1)) << c.file;
    std::string after = loopnest::apply_site(path, text, c.args, sites[0]);
    for (int r = 0; r < c.rows; ++r) {
      EXPECT_LT(at(after, c.transpose(r)), at(after, c.matmul(r))) << c.file << "\n" << after;
      if (r + 1 < c.rows) EXPECT_LT(at(after, c.matmul(r)), at(after, c.transpose(r + 1))) << c.file << "\n" << after;
    }
    EXPECT_LT(rel_error(run(path, after, c.args), run(path, text, c.args)), 1e-5) << after;
    // Nothing is left to move.
    EXPECT_TRUE(sites_of(path, after, c.args).empty()) << after;
  }
}

TEST(OrderStages, EverySiteOfTheKernelsKeepsTheirResult) {
  for (const auto& c : cases()) {
    std::string path = source_dir() + c.file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), c.args), 0u) << c.file;
  }
}

// Each edit of the legacy kernel adds a dependence between row 0's matmul nest and row 1's
// transpose nest, which it would pass.
void expect_refused(const std::string& from, const std::string& to) {
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string text = read(path);
  replace(text, from, to);
  EXPECT_TRUE(sites_of(path, text, c.args).empty()) << text;
}

const char* kT1 = "            p_t_1[t] = nl.copy(nisa.nc_transpose(p_1[:, t * 128:(t + 1) * 128]))\n";
const char* kM0 = "            acc_0 += nisa.nc_matmul(p_t_0[t], v_sb[t])\n";

// Row 0's matmuls read row 1's transposes as well (a flow through SBUF): they stay after them,
// and row 1's matmuls do not pass row 0's, another reader of the same transposes.
TEST(OrderStages, RefusedWhenTheMatmulsReadTheNestTheyWouldPass) {
  expect_refused(kM0, "            acc_0 += nisa.nc_matmul(p_t_1[t], v_sb[t])\n");
}

// Row 0's matmul nest overwrites the probabilities row 1's transposes read (an anti dependence).
TEST(OrderStages, RefusedWhenTheMatmulsWriteWhatTheNestTheyWouldPassReads) {
  expect_refused(kM0, std::string(kM0) + "            p_1[:, t * 128:(t + 1) * 128] = nl.copy(p_t_0[t])\n");
}

// Both write row 1's transposed tiles (an output dependence).
TEST(OrderStages, RefusedWhenBothWriteOneTile) {
  expect_refused(kM0, std::string(kM0) + "            p_t_1[t] = nl.copy(v_sb[t])\n");
}

// Row 1's transposes also write row 0's PSUM accumulator.
TEST(OrderStages, RefusedWhenBothWriteOnePsumTile) {
  expect_refused(kT1, std::string(kT1) + "            acc_0[...] = nisa.nc_transpose(p_1[:, t * 128:(t + 1) * 128])\n");
}

// Row 1's transpose nest stores into an HBM tensor row 0's matmul nest loads from (a DMA flow).
TEST(OrderStages, RefusedWhenAStoreFeedsALoadOfTheMovedNest) {
  std::string t1 = std::string(kT1) + "            nl.store(out[qt, 1], value=p_t_1[t])\n";
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string text = read(path);
  replace(text, kT1, t1);
  replace(text, kM0, "            acc_0 += nisa.nc_matmul(p_t_0[t], nl.load(out[qt, 1]))\n");
  EXPECT_TRUE(sites_of(path, text, c.args).empty()) << text;
}

// Row 0's accumulator declared between the two transpose nests: the matmuls cannot pass it.
TEST(OrderStages, RefusedWhenItWouldPassTheDeclarationOfItsTile) {
  const Case c = cases()[0];
  std::string path = source_dir() + c.file;
  std::string text = read(path);
  replace(text, "        acc_0 = nl.zeros((128, d), dtype=nl.float32, buffer=nl.psum)\n", "");
  replace(text, "        for t in nl.affine_range(kv_tiles):\n" + std::string(kT1),
          "        acc_0 = nl.zeros((128, d), dtype=nl.float32, buffer=nl.psum)\n"
          "        for t in nl.affine_range(kv_tiles):\n" + std::string(kT1));
  EXPECT_TRUE(sites_of(path, text, c.args).empty()) << text;
}

}  // namespace
