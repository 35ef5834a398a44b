// psum_accumulate (src/loopnest/psum_accumulate.cpp): an fp32 SBUF accumulator of Vector Engine
// results declared in PSUM instead, so each accumulation streams at N instead of 2N. On mamba
// after chunk_rows (a [128, 512] accumulator per chunk) it is one site; after jam_rows one site
// moves both rows' accumulators. It keeps the result, gains on the full-size kernel, and is refused
// where PSUM cannot hold the tile or a reader cannot read PSUM (a DMA reader gets a copy to SBUF).
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

using builtin_test::simulated_ms;
using Args = std::vector<loopnest::ArgSpec>;

const std::string kMamba = "mamba_M7168_C256_S16";

std::vector<Site> sites(const std::string& source, const Args& args, const std::string& transform) {
  std::vector<Site> out;
  for (auto& s : find_sites(source, args))
    if (s.transform == transform) out.push_back(s);
  return out;
}

Site site_with(const std::string& source, const Args& args, const std::string& transform, const std::string& key,
               const std::string& value) {
  for (auto& s : sites(source, args, transform))
    if (key.empty() || (s.params.count(key) && s.params.at(key) == value)) return s;
  ADD_FAILURE() << "no " << transform << " site with " << key << "=" << value;
  return Site{};
}

// delta, u: (C, M), a: (C, S), b, c: (S, M).
Args mamba_args(int64_t channels, int64_t seq) {
  return builtin_test::arrays({{channels, seq}, {channels, seq}, {channels, 16}, {16, seq}, {16, seq}});
}

TEST(BuiltinPsumAccumulate, HalvesTheAccumulationsOfTheChunkedMamba) {
  const Args args = mamba_args(256, 7168);
  std::string kernel = builtin_test::style_kernel("bundled", kMamba);
  // The whole-row accumulator (28 KiB per partition) does not fit a PSUM bank.
  EXPECT_TRUE(sites(kernel, args, "psum_accumulate").empty());
  std::string chunked = apply_site(kernel, site_with(kernel, args, "chunk_rows", "chunk", "512"), args);
  auto one = sites(chunked, args, "psum_accumulate");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].relieves, std::set<std::string>{"dve"});
  double chunked_ms = simulated_ms(kMamba, chunked);
  // 1.5662 -> 1.3784 ms: 2 x 16 accumulations of [128, 512] fp32 per chunk at N instead of 2N.
  EXPECT_LT(simulated_ms(kMamba, apply_site(chunked, one[0], args)), 0.92 * chunked_ms);

  std::string jammed = apply_site(chunked, site_with(chunked, args, "jam_rows", "factor", "2"), args);
  auto both = sites(jammed, args, "psum_accumulate");
  ASSERT_EQ(both.size(), 1u);  // the two rows' accumulators move together
  std::string moved = apply_site(jammed, both[0], args);
  EXPECT_EQ(moved.find("buffer=nl.sbuf)\n            acc"), std::string::npos);
  // 1.3857 -> 1.1959 ms.
  EXPECT_LT(simulated_ms(kMamba, moved), 0.9 * simulated_ms(kMamba, jammed));
}

TEST(BuiltinPsumAccumulate, KeepsTheResult) {
  std::string kernel = "# inputs: 256x1024 256x1024 256x16 16x1024 16x1024\n" +
                       builtin_test::style_kernel("bundled", kMamba);
  Args args = loopnest::arg_specs_from_header(kernel);
  std::string chunked = apply_site(kernel, site_with(kernel, args, "chunk_rows", "chunk", "512"), args);
  std::string jammed = apply_site(chunked, site_with(chunked, args, "jam_rows", "factor", "2"), args);
  auto found = sites(jammed, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(jammed, found[0], args);
  auto shapes = builtin_test::input_shapes(kernel);
  auto want = builtin_test::run_source(kernel, shapes);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), want), 1e-5);
}

// Accumulators PSUM cannot take: wider than a bank, read by the Tensor Engine, added on GpSimd.
const char* kRefused = R"(# inputs: 128x512 512x128 128x1024
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, y):
    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.shared_hbm)
    out3 = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    wide = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    fed = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    pooled = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    x_tile = nl.load(x)
    y_tile = nl.load(y)
    for i in nl.affine_range(4):
        wide += nisa.tensor_tensor(y_tile, y_tile, op=nl.multiply)
        fed += nisa.tensor_tensor(x_tile[:, 0:128], x_tile[:, 128:256], op=nl.multiply)
        pooled += nisa.tensor_tensor(x_tile, x_tile, op=nl.multiply, engine=nisa.gpsimd_engine)
    w_tile = nl.load(w[0:128, :])
    res = nisa.nc_matmul(fed, w_tile)
    nl.store(out, value=nl.copy(res, dtype=x.dtype))
    nl.store(out2, value=wide)
    nl.store(out3, value=pooled)
    return out, out2, out3
)";

TEST(BuiltinPsumAccumulate, RefusesWhatPsumCannotHoldOrServe) {
  std::string source = kRefused;
  Args args = loopnest::arg_specs_from_header(source);
  EXPECT_TRUE(sites(source, args, "psum_accumulate").empty());
  // The same kernel with the last accumulation on the Vector Engine: that accumulator moves.
  std::string on_vector = source;
  on_vector.erase(on_vector.find(", engine=nisa.gpsimd_engine"), std::string(", engine=nisa.gpsimd_engine").size());
  auto moved = sites(on_vector, args, "psum_accumulate");
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_NE(moved[0].summary.find("`pooled`"), std::string::npos) << moved[0].summary;
}

TEST(BuiltinPsumAccumulate, CopiesOutOfPsumBeforeADmaThatCannotReadIt) {
  // nki_api's mamba zeroes its accumulator with nisa.memset (no engine given) and stores it with
  // nisa.dma_copy, which cannot read PSUM (the interpreter refuses it): the move copies the tile to
  // SBUF before the DMA. Chained: 1.3309 -> 1.1479 ms; after chunk_rows alone a smaller gain.
  const Args args = mamba_args(256, 7168);
  std::string api = builtin_test::style_kernel("nki_api", kMamba);
  std::string chunked = apply_site(api, site_with(api, args, "chunk_rows", "chunk", "512"), args);
  auto found = sites(chunked, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(chunked, found[0], args);
  EXPECT_NE(moved.find("acc_sbuf[...] = acc\n"), std::string::npos) << moved;
  EXPECT_NE(moved.find("src=acc_sbuf)"), std::string::npos) << moved;
  EXPECT_LT(simulated_ms(kMamba, moved), 0.92 * simulated_ms(kMamba, chunked));
  // And on a small instance it keeps the result.
  std::string small = "# inputs: 256x1024 256x1024 256x16 16x1024 16x1024\n" + api;
  Args small_args = loopnest::arg_specs_from_header(small);
  std::string small_chunked = apply_site(small, site_with(small, small_args, "chunk_rows", "chunk", "512"), small_args);
  auto small_found = sites(small_chunked, small_args, "psum_accumulate");
  ASSERT_EQ(small_found.size(), 1u);
  std::string small_moved = apply_site(small_chunked, small_found[0], small_args);
  auto shapes = builtin_test::input_shapes(small);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(small_moved, shapes), builtin_test::run_source(small, shapes)),
            1e-5);
}

TEST(BuiltinPsumAccumulate, ContractsTheLegacyBlockBufferFirst) {
  // legacy_grid declares every chunk's accumulator up front (`v10 = nl.zeros((2, 14, par_dim(128),
  // 512))` after chunk_rows: 56 KiB per partition, over PSUM's 16 KiB): the move makes the chunk's
  // block a tile of its own in the chunk loop (contract.cpp), then declares that in PSUM.
  // 1.5758 -> 1.3784 ms; jam_rows after it 1.1440 ms.
  const Args args = mamba_args(256, 7168);
  std::string grid = builtin_test::style_kernel("legacy_grid", kMamba);
  std::string chunked = apply_site(grid, site_with(grid, args, "chunk_rows", "chunk", "512"), args);
  auto found = sites(chunked, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(chunked, found[0], args);
  EXPECT_NE(moved.find("v10 = nl.zeros((128, 512), dtype=np.float32, name='acc', buffer=nl.psum)"), std::string::npos)
      << moved;
  EXPECT_LT(simulated_ms(kMamba, moved), 0.92 * simulated_ms(kMamba, chunked));
}

TEST(BuiltinPsumAccumulate, TakesASumStartedFromItsFirstTerm) {
  // `if s == 0: acc = h * c` then `acc = acc + h * c`: the first write is a plain Vector Engine
  // result, which PSUM takes as well as the adds (before session 20 any write but a zeroing, an
  // accumulation or an in-place update kept the tile in SBUF). The result is unchanged.
  std::string source = "# inputs: 4x128x512 4x128x512\n" +
                       builtin_test::read(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/first_term_sum.py");
  Args args = loopnest::arg_specs_from_header(source);
  auto found = sites(source, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(source, found[0], args);
  EXPECT_NE(moved.find("acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)"), std::string::npos) << moved;
  auto shapes = builtin_test::input_shapes(source);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
            1e-6);
  // The first term computed on GpSimd, which cannot write PSUM: the tile stays in SBUF.
  std::string pooled = source;
  pooled.replace(pooled.find("acc[...] = nl.multiply(h_tile, c_tile)"),
                 std::string("acc[...] = nl.multiply(h_tile, c_tile)").size(),
                 "acc[...] = nisa.tensor_tensor(h_tile, c_tile, op=nl.multiply, engine=nisa.gpsimd_engine)");
  pooled.replace(pooled.find("import neuronxcc.nki.language as nl\n"), 0, "import neuronxcc.nki.isa as nisa\n");
  EXPECT_TRUE(sites(pooled, args, "psum_accumulate").empty());
  // Written afresh in every iteration (no branch): no sum across the iterations, no site.
  std::string afresh = source;
  const std::string branch =
      "        if s == 0:\n            acc[...] = nl.multiply(h_tile, c_tile)\n        else:\n"
      "            acc[...] = nl.add(acc, nl.multiply(h_tile, c_tile))\n";
  ASSERT_NE(afresh.find(branch), std::string::npos);
  afresh.replace(afresh.find(branch), branch.size(),
                 "        acc[...] = nl.multiply(h_tile, c_tile)\n        acc[...] = nl.add(acc, nl.multiply(h_tile, c_tile))\n");
  EXPECT_TRUE(sites(afresh, args, "psum_accumulate").empty());
}

TEST(BuiltinPsumAccumulate, MovesAListOfAccumulatorTiles) {
  // `accs = [nl.zeros((128, cols), ..., buffer=nl.sbuf) for _ in range(2)]`: each item is a tile
  // allocated apart, so the list moves when one item fits a bank (before session 20 a list was
  // never moved). The comprehension's keyword changes; the result does not.
  std::string source = "# inputs: 4x256x512 4x256x512\n" +
                       builtin_test::read(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/listed_accumulators.py");
  Args args = loopnest::arg_specs_from_header(source);
  auto found = sites(source, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(source, found[0], args);
  EXPECT_NE(moved.find("accs = [nl.zeros((128, cols), dtype=nl.float32, buffer=nl.psum) for _ in range(rows // 128)]"),
            std::string::npos)
      << moved;
  auto shapes = builtin_test::input_shapes(source);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
            1e-6);
}

// The same sums written with the newer API: the items are written destination-first and leave by
// nisa.dma_copy, which cannot read PSUM, so each store first copies its item to an SBUF tile.
const char* kListedApi = R"(# inputs: 4x256x512 4x256x512
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(h, c):
    states, rows, cols = h.shape
    out = nl.ndarray((rows, cols), dtype=h.dtype, buffer=nl.shared_hbm)
    accs = [nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf) for _ in range(2)]
    prod = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    h_t = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    c_t = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    for r in range(2):
        nisa.memset(dst=accs[r], value=0.0)
    for s in nl.sequential_range(states):
        for r in range(2):
            nisa.dma_copy(dst=h_t, src=h[s, r * 128:(r + 1) * 128, :])
            nisa.dma_copy(dst=c_t, src=c[s, r * 128:(r + 1) * 128, :])
            nisa.tensor_tensor(dst=prod, data1=h_t, data2=c_t, op=nl.multiply)
            nisa.tensor_tensor(dst=accs[r], data1=accs[r], data2=prod, op=nl.add)
    for r in range(2):
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=accs[r])
    return out
)";

TEST(BuiltinPsumAccumulate, CopiesAListItemOutOfPsumBeforeItsDma) {
  std::string source = kListedApi;
  Args args = loopnest::arg_specs_from_header(source);
  auto found = sites(source, args, "psum_accumulate");
  ASSERT_EQ(found.size(), 1u);
  std::string moved = apply_site(source, found[0], args);
  EXPECT_NE(moved.find("buffer=nl.psum) for _ in range(2)]"), std::string::npos) << moved;
  EXPECT_NE(moved.find("= accs[r]"), std::string::npos) << moved;  // the copy to SBUF
  auto shapes = builtin_test::input_shapes(source);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
            1e-6);
}

}  // namespace
}  // namespace agents::builtin
