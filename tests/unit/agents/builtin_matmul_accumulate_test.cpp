// matmul_accumulate (src/loopnest/matmul_accumulate.cpp): a loop's fp32 tile sum read by one matmul
// after the loop becomes the matmul of each tile accumulated in PSUM (the Vector Engine's adds go).
// The same nest written two ways (legacy: nl.zeros, `acc[...] = nl.add(acc, t)`, a returned matmul
// result; newer API: nl.ndarray + nisa.memset, tensor_tensor(dst=acc, data1=acc, ...), nc_matmul
// into a declared PSUM tile, its operand declared and filled after the loop) offers one site at the
// same anchor, keeps the result, and is refused where linearity or the dependences do not hold.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

using Args = std::vector<loopnest::ArgSpec>;

std::vector<Site> sites(const std::string& source, const Args& args) {
  std::vector<Site> out;
  for (auto& s : find_sites(source, args))
    if (s.transform == "matmul_accumulate") out.push_back(s);
  return out;
}

const char* kLegacy = R"(# inputs: 256x256
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((1, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    for r in nl.sequential_range(2):
        tile = nl.load(x[r * 128:(r + 1) * 128, :])
        acc[...] = nl.add(acc, tile)
    ones = nl.full((128, 1), 1.0, dtype=nl.float32)
    total = nisa.nc_matmul(ones, acc)
    nl.store(out, value=nl.copy(total, dtype=x.dtype))
    return out
)";

const char* kNewApi = R"(# inputs: 256x256
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((1, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for r in nl.affine_range(2):
        tile = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=x[r * 128:(r + 1) * 128, :])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=tile, op=nl.add)
    ones = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=ones, value=1.0)
    total = nl.ndarray((1, 256), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=total, stationary=ones, moving=acc)
    res = nl.ndarray((1, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=total)
    nisa.dma_copy(dst=out, src=res)
    return out
)";

TEST(BuiltinMatmulAccumulate, SumsInPsumInBothStylesAndKeepsTheResult) {
  std::string anchor;
  for (const char* source : {kLegacy, kNewApi}) {
    Args args = loopnest::arg_specs_from_header(source);
    auto found = sites(source, args);
    ASSERT_EQ(found.size(), 1u) << source;
    if (anchor.empty()) anchor = found[0].params.at("anchor");
    EXPECT_EQ(found[0].params.at("anchor"), anchor);  // the same nest, the same site
    EXPECT_EQ(found[0].relieves, std::set<std::string>{"dve"});
    std::string moved = apply_site(source, found[0], args);
    // No add left on the accumulator; the matmul runs in the loop, into a zeroed PSUM tile.
    EXPECT_EQ(moved.find("acc"), std::string::npos) << moved;
    EXPECT_NE(moved.find("buffer=nl.psum"), std::string::npos) << moved;
    EXPECT_LT(moved.find("nl.zeros"), moved.find("for r in")) << moved;
    EXPECT_GT(moved.find("nc_matmul"), moved.find("for r in")) << moved;
    EXPECT_LT(moved.find("ones"), moved.find("for r in")) << moved;  // the stationary moved before the loop
    auto shapes = builtin_test::input_shapes(source);
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
              1e-5)
        << moved;
  }
}

TEST(BuiltinMatmulAccumulate, RefusedWhereTheSumIsReadElsewhereOrTheOperandChanges) {
  Args args = loopnest::arg_specs_from_header(kLegacy);
  auto variant = [](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  // The sum itself is stored as well: it must stay.
  std::string stored = variant(kLegacy, "    return out\n", "    nl.store(out2, value=acc)\n    return out, out2\n");
  stored = variant(stored, "    acc = nl.zeros", "    out2 = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n    acc = nl.zeros");
  EXPECT_TRUE(sites(stored, args).empty());
  // Not a sum: a product accumulated is not linear in the tile.
  EXPECT_TRUE(sites(variant(kLegacy, "nl.add(acc, tile)", "nl.multiply(acc, tile)"), args).empty());
  // A tile of another shape (broadcast into the sum).
  EXPECT_TRUE(sites(variant(kLegacy, "x[r * 128:(r + 1) * 128, :]", "x[r * 128:(r + 1) * 128, 0:1]"), args).empty());
  // The stationary operand is written in the loop: its value at the matmul is the last iteration's.
  std::string in_loop = variant(kLegacy, "    ones = nl.full((128, 1), 1.0, dtype=nl.float32)\n", "");
  in_loop = variant(in_loop, "        acc[...] =", "        ones = nl.full((128, 1), 1.0, dtype=nl.float32)\n        acc[...] =");
  EXPECT_TRUE(sites(in_loop, args).empty());
  // The plain kernel offers it (the variants above differ from it by one change each).
  EXPECT_EQ(sites(kLegacy, args).size(), 1u);
}

}  // namespace
}  // namespace agents::builtin
