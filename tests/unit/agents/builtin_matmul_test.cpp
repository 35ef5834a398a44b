// The matmul-family rewrites (src/agents/builtin/matmul_transforms.cpp): unroll_jam,
// reorder_reuse and pipeline_prep. Every site on the small golden kernels (tests/golden/rewrite/mm_*.py) must compute
// the same outputs as the original through the interpreter; a factor that does not divide the trip
// count fails loudly; the shared tiles really are loaded once per block; and the legality
// pre-checks refuse the nests where sharing or reordering would change the result.
#include <regex>

#include <gtest/gtest.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

using builtin_test::golden_dir;
using builtin_test::read;
using builtin_test::sites_of;

Site site_with_factor(const std::string& source, const std::string& transform, int factor) {
  for (auto& s : sites_of(source, transform))
    if (s.params.at("factor") == std::to_string(factor)) return s;
  ADD_FAILURE() << "no " << transform << " factor=" << factor << " site";
  return {};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The unrolled-and-jammed part of a rewritten kernel (from its block loop on).
std::string main_part(const std::string& after) {
  size_t begin = after.find("_blk in nl.affine_range(");
  return begin == std::string::npos ? "" : after.substr(after.rfind("for ", begin));
}

const char* kMatmulKernels[] = {"mm_stream", "mm_prep", "mm_chain", "mm_bmm"};

TEST(BuiltinMatmul, EverySiteKeepsTheOutputs) {
  int checked = 0;
  for (const char* name : kMatmulKernels) {
    std::string before = read(golden_dir() + "/" + name + ".py");
    auto shapes = builtin_test::input_shapes(before);
    auto want = builtin_test::run_source(before, shapes);
    for (const char* transform : {"unroll_jam", "reorder_reuse", "pipeline_prep"}) {
      for (const auto& site : sites_of(before, transform)) {
        SCOPED_TRACE(std::string(name) + ": " + site.key());
        std::string after = apply_site(before, site);
        EXPECT_NO_THROW(parse_source(after));
        EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), want), 2e-5);
        ++checked;
      }
    }
  }
  // mm_stream: unroll_jam x2; mm_prep and mm_chain: unroll_jam x2, reorder_reuse x3 and
  // pipeline_prep x1 (the row loop's transposes); mm_bmm: pipeline_prep x1.
  EXPECT_EQ(checked, 15);
}

TEST(BuiltinMatmul, UnrollJamSharesTheStreamedOperand) {
  std::string before = read(golden_dir() + "/mm_stream.py");
  std::string after = apply_site(before, site_with_factor(before, "unroll_jam", 4));
  std::string main = main_part(after);
  // One rhs load per column chunk and one for the tail, shared by the four rows of a block...
  EXPECT_EQ(count(main, "nl.load(rhs"), 2u);
  // ...while each row keeps its own lhs tile and accumulators.
  EXPECT_EQ(count(main, "nl.load(lhs"), 4u);
  EXPECT_EQ(count(main, "acc_3 += nisa.nc_matmul(lhs_tile_3[:, t, :], rhs_tile)"), 2u);
  EXPECT_NE(after.find("assert m_tiles % 4 == 0"), std::string::npos);
}

// A list filled by `.append` with tiles of the unrolled iteration is per copy like a buffer
// written with them: shared, every copy's tiles went into one list and the first copy's were read
// by all (tests/kernels/corpus/p9_matmul_trace_lists.py gave wrong columns).
TEST(BuiltinMatmul, UnrollJamGivesEachCopyItsOwnListOfAppendedTiles) {
  std::string before =
      "# inputs: 256x256 256x1024\n"
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n"
      "def kernel(a, b):\n"
      "    M, K = a.shape\n"
      "    N = b.shape[1]\n"
      "    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    for n0 in nl.affine_range(N // 512):\n"
      "        b_blocks = []\n"
      "        for k in range(K // 128):\n"
      "            b_blocks.append(nl.load(b[k * 128:(k + 1) * 128, n0 * 512:(n0 + 1) * 512]))\n"
      "        for m0 in nl.affine_range(M // 128):\n"
      "            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
      "            for k in range(K // 128):\n"
      "                aT = nl.load_transpose2d(a[m0 * 128:(m0 + 1) * 128, k * 128:(k + 1) * 128])\n"
      "                acc += nl.matmul(aT, b_blocks[k], transpose_x=True)\n"
      "            nl.store(c[m0 * 128:(m0 + 1) * 128, n0 * 512:(n0 + 1) * 512], value=acc)\n"
      "    return c\n";
  auto shapes = builtin_test::input_shapes(before);
  auto want = builtin_test::run_source(before, shapes);
  std::string after = apply_site(before, site_with_factor(before, "unroll_jam", 2));
  EXPECT_NE(after.find("b_blocks_1 = []"), std::string::npos) << after;
  EXPECT_NE(after.find("b_blocks_1.append(nl.load(b[k * 128:(k + 1) * 128, n0_1 * 512"), std::string::npos) << after;
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), want), 2e-5) << after;
}

TEST(BuiltinMatmul, AFactorThatDoesNotDivideTheRowsFailsInsteadOfSkippingRows) {
  std::string before = read(golden_dir() + "/mm_stream.py");
  std::string after = apply_site(before, site_with_factor(before, "unroll_jam", 4));
  // The same kernels on 3 row tiles: the original runs, the rewrite stops at its assert.
  std::string three = "# inputs: 128x2x384 128x2x640";
  auto shapes = builtin_test::input_shapes(three);
  EXPECT_NO_THROW(builtin_test::run_source(before, shapes));
  EXPECT_ANY_THROW(builtin_test::run_source(after, shapes));
}

// The newer API writes through destination-first calls. After reorder_reuse makes the column loop
// outermost, blocking it jams the whole row body into each block: a matmul the block's copies share
// (it reads nothing of the column) accumulates into a PSUM tile the body makes once per block, so
// it must run once, not once per copy (an outside author's swiglu came out with its gate and up
// products doubled). Every site keeps the outputs.
TEST(BuiltinMatmul, AJammedCopySharesTheDestinationFirstWritesThatDoNotDependOnIt) {
  std::string before =
      "# inputs: 128x256 128x128 128x1024\n"
      "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n@nki.jit\n"
      "def kernel(x_t, w, v):\n"
      "    k_size, m_size = x_t.shape\n"
      "    _, n_size = w.shape\n"
      "    _, d_size = v.shape\n"
      "    out = nl.ndarray((m_size, d_size), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    w_sb = nl.ndarray((k_size, n_size), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    nisa.dma_copy(dst=w_sb, src=w)\n"
      "    for mb in nl.affine_range(m_size // 128):\n"
      "        x_sb = nl.ndarray((k_size, 128), dtype=nl.float32, buffer=nl.sbuf)\n"
      "        nisa.dma_copy(dst=x_sb, src=x_t[:, mb * 128:(mb + 1) * 128])\n"
      "        h_ps = nl.ndarray((n_size, 128), dtype=nl.float32, buffer=nl.psum)\n"
      "        nisa.nc_matmul(dst=h_ps, stationary=w_sb, moving=x_sb)\n"
      "        h_t = nl.ndarray((n_size, 128), dtype=nl.float32, buffer=nl.sbuf)\n"
      "        nisa.tensor_copy(dst=h_t, src=h_ps)\n"
      "        for d in nl.affine_range(d_size // 512):\n"
      "            v_sb = nl.ndarray((n_size, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
      "            for t in nl.affine_range(n_size // 32):\n"
      "                nisa.dma_copy(dst=v_sb[t * 32:(t + 1) * 32, :], src=v[t * 32:(t + 1) * 32, d * 512:(d + 1) * 512])\n"
      "            o_ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
      "            nisa.nc_matmul(dst=o_ps, stationary=h_t, moving=v_sb)\n"
      "            o_sb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
      "            nisa.tensor_copy(dst=o_sb, src=o_ps)\n"
      "            nisa.dma_copy(dst=out[mb * 128:(mb + 1) * 128, d * 512:(d + 1) * 512], src=o_sb)\n"
      "    return out\n";
  auto shapes = builtin_test::input_shapes(before);
  auto want = builtin_test::run_source(before, shapes);
  Site blocked = site_with_factor(before, "reorder_reuse", 2);
  std::string after = apply_site(before, blocked);
  EXPECT_EQ(count(after, "nisa.nc_matmul(dst=h_ps"), 1u) << after;  // shared by the two columns of a block
  EXPECT_EQ(count(after, "nisa.nc_matmul(dst=o_ps"), 2u) << after;  // one per column
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), want), 2e-5) << after;
  // Every site at these shapes: the factor 4 over the two column blocks does not apply.
  auto args = builtin_test::arrays({{128, 256}, {128, 128}, {128, 1024}});
  int kept = 0;
  for (const auto& site : sites_of(before, "reorder_reuse")) {
    SCOPED_TRACE(site.key());
    if (site.params.at("factor") == "4") {
      EXPECT_THROW(apply_site(before, site, args), RewriteError);
      continue;
    }
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(apply_site(before, site, args), shapes), want), 2e-5);
    ++kept;
  }
  EXPECT_EQ(kept, 2);  // factors 1 and 2
}

// With the task's arguments, a source-level rewrite whose own assertion fails at them is no site:
// the factor 4 over 3 row tiles (its evaluation would only fail at trace time).
TEST(BuiltinMatmul, WithTheTasksShapesAFactorThatDoesNotDivideTheRowsDoesNotApply) {
  std::string before = read(golden_dir() + "/mm_stream.py");
  Site four = site_with_factor(before, "unroll_jam", 4), two = site_with_factor(before, "unroll_jam", 2);
  auto three = builtin_test::arrays({{128, 2, 384}, {128, 2, 640}});
  auto four_rows = builtin_test::arrays({{128, 2, 512}, {128, 2, 640}});
  EXPECT_THROW(apply_site(before, four, three), RewriteError);
  EXPECT_THROW(apply_site(before, two, three), RewriteError);
  EXPECT_NO_THROW(apply_site(before, four, four_rows));
  EXPECT_NO_THROW(apply_site(before, four));  // no shapes: the assertion stays the kernel's
}

TEST(BuiltinMatmul, ReorderPreparesEachRowOnceAndKeepsAccumulatorsPerColumnBlock) {
  std::string before = read(golden_dir() + "/mm_prep.py");
  std::string after = apply_site(before, site_with_factor(before, "reorder_reuse", 2));
  std::string main = main_part(after);
  size_t row_loop = main.find("for m_blk in nl.affine_range(m_tiles // 2):");
  size_t transpose = main.find("is_transpose=True");
  size_t column_loop = main.find("for n in nl.affine_range(n_size // block):");
  size_t acc = main.find("acc_0 = nl.zeros");
  ASSERT_NE(row_loop, std::string::npos);
  // transposes before (outside) the column loop, the accumulator initialised inside it.
  EXPECT_LT(row_loop, transpose);
  EXPECT_LT(transpose, column_loop);
  EXPECT_LT(column_loop, acc);
  // The two rows of a block share one rhs load per K tile.
  EXPECT_EQ(count(main, "nl.load(rhs"), 1u);
}

TEST(BuiltinMatmul, ReorderKeepsThePerfectRowNest) {
  std::string before = read(golden_dir() + "/mm_chain.py");
  std::string after = apply_site(before, site_with_factor(before, "reorder_reuse", 2));
  size_t i_loop = after.find("for i in nl.affine_range(m_outer):");
  size_t j_block = after.find("for j_blk in nl.affine_range(m_inner // 2):");
  size_t n_loop = after.find("for n in nl.affine_range(n_size // block):");
  ASSERT_NE(i_loop, std::string::npos);
  EXPECT_LT(i_loop, j_block);
  EXPECT_LT(j_block, n_loop);
  EXPECT_EQ(count(main_part(after), "nl.load(w["), 1u);
}

// Kernels where the pre-checks must refuse.
const char* kSequential = R"(
@nki.jit
def kernel(a, b):
    out = nl.ndarray((4, 128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for m in nl.sequential_range(4):
        x = nl.load(a[m])
        for t in nl.affine_range(2):
            y = nl.load(b[t])
            nl.store(out[m], value=nl.add(x, y))
    return out
)";

// `x` of the last row is read after the loop: the per-row copies would leave it undefined.
const char* kLiveOut = R"(
@nki.jit
def kernel(a, b):
    out = nl.ndarray((4, 128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(4):
        x = nl.load(a[m])
        for t in nl.affine_range(2):
            y = nl.load(b[t])
            nl.store(out[m], value=nl.add(x, y))
    nl.store(out[0], value=x)
    return out
)";

// The inner trip count depends on the row: the copies cannot share one loop header.
const char* kRowDependentRange = R"(
@nki.jit
def kernel(a, b):
    out = nl.ndarray((4, 128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(4):
        x = nl.load(a[m])
        for t in nl.affine_range(m + 1):
            y = nl.load(b[t])
            nl.store(out[m], value=nl.add(x, y))
    return out
)";

// The row preparation (`acc` and the loop over t) is updated by the part that reads the column
// block (`acc += ... y ...`): hoisting it out of the column loop would accumulate across blocks.
const char* kPrefixUpdatedByRest = R"(
@nki.jit
def kernel(a, b):
    out = nl.ndarray((4, 2, 128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for n in nl.affine_range(2):
        y = nl.load(b[n])
        for m in nl.affine_range(4):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(2):
                x = nl.load(a[m, t])
                acc += nisa.nc_matmul(x, x)
            acc += nisa.nc_matmul(y, y)
            nl.store(out[m, n], value=acc)
    return out
)";

TEST(BuiltinMatmul, PipelinePrepKeepsTheTransposedRowsNotThePsumTiles) {
  std::string before = read(golden_dir() + "/mm_bmm.py");
  auto sites = sites_of(before, "pipeline_prep");
  // Only after the SBUF copy: splitting after the load or the transpose would keep a PSUM tile (or
  // nothing transposed) per row; the batch loop prepares no transpose.
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("at"), "3");
  std::string after = apply_site(before, sites[0]);
  EXPECT_NE(after.find("lhs_t_tiles.append(lhs_t)"), std::string::npos);
  EXPECT_NE(after.find("nisa.nc_matmul(lhs_t_tiles[m], rhs_tile"), std::string::npos);
  EXPECT_EQ(after.find("t_psum_tiles"), std::string::npos);
}

// The preparation reads a buffer the multiply half writes: it cannot run ahead for every row.
const char* kPrepReadsTail = R"(
@nki.jit
def kernel(a, b):
    out = nl.ndarray((4, 128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    rhs = nl.load(b)
    prev = nl.ndarray((4, nl.par_dim(128), 128), dtype=a.dtype, buffer=nl.sbuf)
    for m in nl.affine_range(4):
        x = nl.load(a[m])
        t = nisa.nc_matmul(x, ident, is_moving_onezero=True, is_transpose=True)
        xt = nl.add(t, prev[m])
        acc = nisa.nc_matmul(xt, rhs)
        prev[m] = nl.copy(acc[:, 0:128])
        nl.store(out[m], value=acc)
    return out
)";

TEST(BuiltinMatmul, RefusesIllegalOrUselessSites) {
  EXPECT_TRUE(sites_of(kPrepReadsTail, "pipeline_prep").empty());
  EXPECT_TRUE(sites_of(kSequential, "unroll_jam").empty());
  EXPECT_TRUE(sites_of(kLiveOut, "unroll_jam").empty());
  EXPECT_TRUE(sites_of(kRowDependentRange, "unroll_jam").empty());
  EXPECT_TRUE(sites_of(kPrefixUpdatedByRest, "reorder_reuse").empty());
  // Nothing to share in an elementwise kernel; nothing to reorder without a row preparation.
  std::string silu = read(golden_dir() + "/silu.py");
  EXPECT_TRUE(sites_of(silu, "unroll_jam").empty());
  EXPECT_TRUE(sites_of(silu, "reorder_reuse").empty());
  EXPECT_TRUE(sites_of(read(golden_dir() + "/mm_stream.py"), "reorder_reuse").empty());
}

// A kernel that lifts gets the form's reorder_reuse alone, found or not: the source-level move knew
// what a statement writes by the names it binds, so `nisa.dma_copy(dst=w2t[:, t, :], ...)` into a
// buffer declared up front was no dependence. On tests/kernels/shared_weight_buffers_api.py it
// moved the row loop out of the column-block loop that loads the row's w2 slice (rel_l2 0.99, by 2
// rows 1.08), and made that column-block loop outer by blocks of 2 loading into the one `w2t`
// (0.99); a held-out swiglu and bmm_softmax of that style had 10 such sites (of 12). Every site
// the agent is offered keeps the outputs.
TEST(BuiltinMatmul, AKernelThatLiftsGetsOnlyTheFormsReorderReuse) {
  std::string before = read(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/shared_weight_buffers_api.py");
  const std::vector<tensor::Shape> shapes = {{2, 2, 128, 128}, {128, 256}, {2, 128, 1024}};
  auto args = builtin_test::arrays(shapes);
  auto want = builtin_test::run_source(before, shapes);
  size_t checked = 0;
  for (const auto& site : find_sites(before, args)) {
    SCOPED_TRACE(site.key());
    if (site.transform == "reorder_reuse") EXPECT_TRUE(site.params.count("anchor"));
    std::string after;
    try {
      after = apply_site(before, site, args);
    } catch (const RewriteError&) {
      continue;  // does not apply at these shapes
    }
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), want), 2e-5) << after;
    ++checked;
  }
  EXPECT_GE(checked, 1u);
  // Without the task's shapes the kernel does not lift, and the source-level move still looks.
  EXPECT_FALSE(sites_of(before, "reorder_reuse").empty());
}

TEST(BuiltinMatmul, BaselineKernelsOfferTheReuseRewrites) {
  std::string dir = std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels/";
  EXPECT_FALSE(sites_of(read(dir + "transpose_matmul_M4096_K2048_N10944_0.py"), "unroll_jam").empty());
  EXPECT_FALSE(sites_of(read(dir + "matmul_M4096_N12288_K5120_0.py"), "reorder_reuse").empty());
  EXPECT_FALSE(sites_of(read(dir + "lora_M4096_N12288_K5120_R128_0.py"), "reorder_reuse").empty());
}

}  // namespace
}  // namespace agents::builtin
