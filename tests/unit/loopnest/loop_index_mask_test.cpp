// Mask terms on the loop indices alone (lift_operators.cpp, loop_mask_term): a generated kernel
// guards a ragged outer tile with `(ax1_0 * U + ax1_1 < n_win) & (... + i_f < N)`, or an access
// with the loop comparison alone. The lift reads such a term as a constraint on no axis of the
// tile (it holds for all of an iteration's elements or for none), drops one the loop ranges decide
// true, and every site offered keeps the kernel's result.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "eval/profile_run.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

const std::string kKernel = "/tests/kernels/corpus/p46_loop_index_mask.py";
const std::string kReference = "/tests/kernels/corpus/p46_loop_index_mask.ref.py";

std::vector<loopnest::ArgSpec> args() {
  const std::string ref = source_dir() + kReference;
  return eval::reference_arg_specs(ref, read(ref));
}

// The constraints of each op of the lifted kernel, in program order: (axes used, the expression and
// comparison as text) per constraint.
std::vector<std::vector<std::string>> masks(const loopnest::Kernel& k) {
  std::vector<std::vector<std::string>> out;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const loopnest::Op& op : n.ops) {
      if (op.cls == loopnest::OpClass::Alloc) continue;
      std::vector<std::string> cons;
      for (const auto& c : op.mask)
        cons.push_back(std::string(c.axes.empty() ? "loops: " : "grid: ") + k.str(c.expr) + " " +
                       loopnest::symbol(c.cmp));
      out.push_back(cons);
    }
  });
  return out;
}

TEST(LoopIndexMask, AComparisonOfLoopIndicesIsAConstraintOnNoAxis) {
  const std::string path = source_dir() + kKernel;
  loopnest::Kernel k = loopnest::lift_source(path, read(path), args());
  auto m = masks(k);
  ASSERT_EQ(m.size(), 4u);  // load, activation, tensor_scalar, store
  const std::string window = "loops: 2*ax1_0 + ax1_1 - 5 <";
  for (size_t i : {0u, 1u, 3u}) {
    SCOPED_TRACE(i);
    // The grid's guard and the window's, in the order written; the store's `& (ax0 < M)` holds in
    // every iteration and is no constraint.
    ASSERT_EQ(m[i].size(), 2u);
    EXPECT_EQ(m[i][0].rfind("grid: ", 0), 0u) << m[i][0];
    EXPECT_EQ(m[i][1], window);
  }
  // The guard alone: the full windows only (1200 // 256 = 4).
  EXPECT_EQ(m[2], (std::vector<std::string>{"loops: 2*ax1_0 + ax1_1 - 4 <"}));
}

TEST(LoopIndexMask, EverySiteKeepsTheResult) {
  const std::string path = source_dir() + kKernel;
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), args()), 0u);
}

}  // namespace
