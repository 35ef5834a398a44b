// rmw_to_psum (src/loopnest/rmw_to_psum.cpp): a split-K matmul whose chunks are summed by DMA
// read-modify-write into HBM (`nisa.dma_copy(..., dst_rmw_op=np.add)`) becomes one PSUM
// accumulation and one store after the loop. The first write taken by `if k == 0` in an
// affine_range, by a zeroed store before a static_range, and by `if c == 0` in the author's loop
// over a host list (`for c, (k0, kn) in enumerate(chunks)`, lifted as a loop) each offer the site,
// keep the result, and the move is refused where the dependences do not allow it: another
// statement of the loop reads `out`, the first write is not the first iteration's, the sum is not
// fp32, the partial product is read elsewhere.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"
#include "loopnest/lift.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

using Args = std::vector<loopnest::ArgSpec>;

std::vector<Site> sites(const std::string& source, const Args& args) {
  std::vector<Site> out;
  for (auto& s : find_sites(source, args))
    if (s.transform == "rmw_to_psum") out.push_back(s);
  return out;
}

std::string read_file(const std::string& rel) {
  std::ifstream in(std::string(ACCELOPT_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string variant(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

Args arrays(const std::vector<tensor::Shape>& shapes) {
  Args out;
  for (const auto& s : shapes) {
    loopnest::ArgSpec a;
    a.shape = std::vector<int64_t>(s.begin(), s.end());
    out.push_back(a);
  }
  return out;
}

// One site; applied, the loop holds no RMW and no copy, the sum is a PSUM tile zeroed before the
// loop, one copy and one plain DMA follow the loop, and the numbers are the same.
void expect_moved(const std::string& source, const std::vector<tensor::Shape>& shapes, const std::string& header) {
  Args args = arrays(shapes);
  auto found = sites(source, args);
  ASSERT_EQ(found.size(), 1u) << source;
  EXPECT_EQ(found[0].relieves.count("dma"), 1u);
  std::string moved = apply_site(source, found[0], args);
  std::string body = moved.substr(moved.find("\ndef "));  // the kernel, without the file's comments
  EXPECT_EQ(body.find("dst_rmw_op"), std::string::npos) << moved;
  size_t loop = moved.find(header);
  ASSERT_NE(loop, std::string::npos) << moved;
  size_t zeros = moved.find("buffer=nl.psum");
  EXPECT_LT(zeros, loop) << moved;
  size_t mm = moved.find("+= nisa.nc_matmul(");
  EXPECT_GT(mm, loop) << moved;
  size_t copy = moved.find("nl.copy(", mm);
  size_t store = moved.find("nisa.dma_copy(", mm);
  EXPECT_LT(copy, store) << moved;
  EXPECT_EQ(moved.find("nisa.dma_copy(", store + 1), std::string::npos) << moved;  // one store
  EXPECT_EQ(moved.find("nl.copy(", copy + 1), std::string::npos) << moved;
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
            1e-5)
      << moved;
}

TEST(BuiltinRmwToPsum, TheBranchTheZeroedOutputAndTheHostListEachSumInPsum) {
  std::string branch = read_file("tests/golden/rewrite/splitk_rmw_branch.py");
  std::string zeroed = read_file("tests/golden/rewrite/splitk_rmw_zeroed.py");
  expect_moved(branch, builtin_test::input_shapes(branch), "for k in nl.affine_range");
  expect_moved(zeroed, builtin_test::input_shapes(zeroed), "for k in nl.static_range");
  Args zargs = arrays(builtin_test::input_shapes(zeroed));
  std::string zmoved = apply_site(zeroed, sites(zeroed, zargs).at(0), zargs);
  // The zeroed tile and its store go.
  EXPECT_EQ(zmoved.find("zero = "), std::string::npos) << zmoved;
  EXPECT_EQ(zmoved.find("value=zero"), std::string::npos) << zmoved;
  // The corpus kernel: a Python list of (start, size) chunks, the last one 64 rows.
  std::string listed = read_file("tests/kernels/corpus/usr_splitk_dma_accumulate.py");
  expect_moved(listed, {{320, 128}, {320, 256}}, "for c, (k0, kn) in enumerate(chunks):");
}

TEST(BuiltinRmwToPsum, TheHostListLoopLiftsAsOneLoopOverTheIndex) {
  std::string listed = read_file("tests/kernels/corpus/usr_splitk_dma_accumulate.py");
  auto k = loopnest::lift_source("usr_splitk_dma_accumulate.py", listed, arrays({{320, 128}, {320, 256}}));
  ASSERT_EQ(k.loops.size(), 1u);
  const loopnest::Loop& l = k.loops.begin()->second;
  EXPECT_EQ(l.var, "c");
  EXPECT_TRUE(l.host_items);
  EXPECT_EQ(l.trip(), 3);
  // Indexing a host list by the item's index is Python of the unrolled loop: it stays unrolled.
  std::string indexed = variant(listed, "    for c, (k0, kn) in enumerate(chunks):\n",
                                "    sizes = [128, 128, 64]\n    for c, (k0, kn) in enumerate(chunks):\n        kn = sizes[c]\n");
  auto u = loopnest::lift_source("indexed.py", indexed, arrays({{320, 128}, {320, 256}}));
  EXPECT_TRUE(u.loops.empty());
  EXPECT_TRUE(sites(indexed, arrays({{320, 128}, {320, 256}})).empty());
}

TEST(BuiltinRmwToPsum, RefusedWhereTheLoopReadsTheOutputOrTheSumIsNotTheRmws) {
  std::string branch = read_file("tests/golden/rewrite/splitk_rmw_branch.py");
  Args args = arrays(builtin_test::input_shapes(branch));
  // Another statement in the loop reads `out`: it would see the partial sums, which the move removes.
  EXPECT_TRUE(sites(variant(branch, "        ps = nisa.nc_matmul(a, b)\n",
                            "        peek = nl.load(out[0:128, 0:1])\n        ps = nisa.nc_matmul(a, b)\n"),
                    args)
                  .empty());
  // The plain write in the second iteration, not the first: the first chunk would be added to poison.
  EXPECT_TRUE(sites(variant(branch, "if k == 0:", "if k == 1:"), args).empty());
  // A bf16 output: the RMW adds in bf16, PSUM in fp32.
  EXPECT_TRUE(sites(variant(branch, "out = nl.ndarray((M, N), dtype=nl.float32", "out = nl.ndarray((M, N), dtype=nl.bfloat16"),
                    args)
                  .empty());
  // Not a sum.
  EXPECT_TRUE(sites(variant(branch, "src=part, dst_rmw_op=np.add", "src=part, dst_rmw_op=np.maximum"), args).empty());
  // The partial product is also read by another statement of the loop.
  EXPECT_TRUE(sites(variant(branch, "        if k == 0:\n", "        twice = nl.multiply(part, 2.0)\n        if k == 0:\n"),
                    args)
                  .empty());
  // The plain kernel offers it (the variants differ from it by one change each).
  EXPECT_EQ(sites(branch, args).size(), 1u);
}

TEST(BuiltinRmwToPsum, RefusedWhereTheFirstIterationIsNotKnownFromTheLoopsStart) {
  // Two groups of three chunks, each summed into its own output: `for k in range(3 * h, 3 * h + 3)`
  // has a constant trip but a start of its own per group, so whether `k == 0` holds in the first
  // iteration is not known (it never does for h = 1, whose sum adds to the output as it was). The
  // same loop from a constant start offers the site.
  const std::string grouped = R"(
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((2, M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in nl.affine_range(2):
        for k in range(3 * h, 3 * h + 3):
            a = nl.load(lhsT[k * 128:(k + 1) * 128, :])
            b = nl.load(rhs[k * 128:(k + 1) * 128, :])
            ps = nisa.nc_matmul(a, b)
            part = nl.copy(ps, dtype=nl.float32)
            if k == 0:
                nisa.dma_copy(dst=out[h], src=part)
            else:
                nisa.dma_copy(dst=out[h], src=part, dst_rmw_op=np.add)
    return out
)";
  Args args = arrays({{768, 128}, {768, 256}});
  EXPECT_TRUE(sites(grouped, args).empty());
  EXPECT_EQ(sites(variant(grouped, "range(3 * h, 3 * h + 3)", "range(0, 3)"), args).size(), 1u);
}

}  // namespace
}  // namespace agents::builtin
