// hoist_transpose (src/loopnest/hoist_transpose.cpp): the Tensor Engine transpose that
// `nl.matmul(x, y)` does of its row operand, redone per iteration of a loop x does not depend on,
// is made explicit and moved before that loop into an SBUF buffer of transposed tiles; the matmul
// reads them with transpose_x=True; an explicit transpose (and its PSUM copy) feeding only a matmul
// moves the same way. Checked on the tutorial-style kernels (a helper computes the
// row operand, the weight loaded in the innermost loop): one site, the transposes counted on the
// form drop by the trip of the loop left, printed in the kernel's dialect; refused when the operand
// changes inside the loop or the buffer does not fit. That the site keeps the kernel's result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's (tests/kernels/helper_rows_matmul.py,
// transpose_per_block.py, shared_row_operand.py).
#include <functional>
#include <set>

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

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "hoist_transpose") out.push_back(s);
  return out;
}

// Operations the kernel runs that `counts` accepts, each times its loops' trips.
int64_t executed(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                 const std::function<bool(const loopnest::Op&)>& counts) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  int64_t n = 0;
  for (const auto& r : an.ops) {
    if (loopnest::is_declaration(r.op()) || !counts(r.op())) continue;
    int64_t times = 1;
    for (int l : r.loops) times *= k.loops.at(l).trip().value_or(0);
    n += times;
  }
  return n;
}

// Tensor Engine transposes the kernel runs: explicit transpose ops (a matmul by the identity with
// is_transpose=True among them) and the one each `nl.matmul(x, y)` without transpose_x=True does.
int64_t transposes_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  return executed(text, args, [](const loopnest::Op& op) {
    bool implicit = op.api == "nl.matmul" && loopnest::symbol_of(op, "transpose_x") != "True";
    bool by_identity = op.api == "nisa.nc_matmul" && loopnest::symbol_of(op, "is_transpose") == "True";
    return op.cls == loopnest::OpClass::Transpose || implicit || by_identity;
  });
}

// Vector / Scalar Engine instructions the kernel runs (copies out of PSUM, scalings, the norm).
int64_t elementwise_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  return executed(text, args, [](const loopnest::Op& op) {
    return op.cls == loopnest::OpClass::Copy || op.cls == loopnest::OpClass::Elementwise ||
           op.cls == loopnest::OpClass::Activation;
  });
}

const std::string kHelperRows = "/tests/kernels/helper_rows_matmul.py";
const std::vector<loopnest::ArgSpec> kHelperArgs = arrays({{256, 256}, {2, 128, 640}});
const std::string kTutorial = "/nkibench/styles/tutorial/rmsnorm_matmul_M4096_N2048_K1024_0.py";
const std::vector<loopnest::ArgSpec> kTutorialArgs = arrays({{32, 128, 1024}, {8, 128, 2048}});

TEST(HoistTranspose, TransposesTheRowOperandOncePerRowTile) {
  struct Case {
    std::string path;
    std::vector<loopnest::ArgSpec> args;
    int64_t before, after;
  };
  // helper_rows_matmul: 2 row tiles x 2 column tiles x 2 k tiles -> 2 x 2.
  // rmsnorm_matmul: 32 row tiles x 4 column blocks x 8 k tiles -> 32 x 8.
  // transpose_per_block (explicit nisa.nc_transpose + nl.copy): 2 x 2 x 2 -> 2 x 2.
  for (const Case& c : {Case{kHelperRows, kHelperArgs, 8, 4}, Case{kTutorial, kTutorialArgs, 1024, 256},
                        Case{"/tests/kernels/transpose_per_block.py", arrays({{256, 256}, {2, 128, 1024}}), 8, 4}}) {
    SCOPED_TRACE(c.path);
    std::string text = read(source_dir() + c.path);
    auto sites = sites_of(text, c.args);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("out_of"), "1");
    EXPECT_EQ(transposes_of(text, c.args), c.before);
    std::string after = loopnest::apply_site("k.py", text, c.args, sites[0]);
    EXPECT_EQ(transposes_of(after, c.args), c.after) << after;
    EXPECT_TRUE(sites_of(after, c.args).empty()) << after;
  }
}

TEST(HoistTranspose, PrintsTheTransposeInTheKernelsDialect) {
  // nki.language only: nl.transpose into a block buffer declared before the column loop.
  std::string text = read(source_dir() + kTutorial);
  std::string after = loopnest::apply_site("k.py", text, kTutorialArgs, sites_of(text, kTutorialArgs).at(0));
  EXPECT_NE(after.find("x_norm_t = nl.ndarray(shape=(k_tiles, nl.par_dim(128), 128)"), std::string::npos) << after;
  EXPECT_NE(after.find("x_norm_t[k, :, :] = nl.transpose(x=x_norm[:, nl.ds(k * TILE_K, TILE_K)])"), std::string::npos)
      << after;
  EXPECT_LT(after.find("nl.transpose("), after.find("for n in")) << after;
  EXPECT_NE(after.find("nl.matmul(x_norm_t[k, :, :], w_tile, transpose_x=True)"), std::string::npos) << after;
  // A kernel importing nki.isa gets nisa.nc_transpose.
  const std::string imports = "import neuronxcc.nki.language as nl\n";
  ASSERT_NE(text.find(imports), std::string::npos);
  text.replace(text.find(imports), imports.size(), imports + "import neuronxcc.nki.isa as nisa\n");
  after = loopnest::apply_site("k.py", text, kTutorialArgs, sites_of(text, kTutorialArgs).at(0));
  EXPECT_NE(after.find("x_norm_t[k, :, :] = nisa.nc_transpose(data=x_norm[:, nl.ds(k * TILE_K, TILE_K)])"),
            std::string::npos)
      << after;
}

TEST(HoistTranspose, OneTransposeServesEveryMatmulOfTheSameRowTile) {
  // shared_row_operand: 2 row tiles x 2 column blocks x 2 k tiles x 2 matmuls -> 2 x 2, from
  // either matmul's site.
  std::string text = read(source_dir() + "/tests/kernels/shared_row_operand.py");
  auto args = arrays({{256, 256}, {2, 128, 1024}, {2, 128, 1024}});
  EXPECT_EQ(transposes_of(text, args), 16);
  auto sites = sites_of(text, args);
  ASSERT_EQ(sites.size(), 2u);
  for (const auto& s : sites) {
    std::string after = loopnest::apply_site("k.py", text, args, s);
    EXPECT_EQ(transposes_of(after, args), 4) << after;
    EXPECT_NE(after.find("g += nl.matmul(xt_t[k, :, :], "), std::string::npos) << after;
    EXPECT_NE(after.find("u += nl.matmul(xt_t[k, :, :], "), std::string::npos) << after;
  }
}

TEST(HoistTranspose, RefusesAnOperandWrittenInsideTheLoop) {
  std::string text = read(source_dir() + kTutorial);
  const std::string acc = "            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)\n";
  ASSERT_NE(text.find(acc), std::string::npos);
  text.replace(text.find(acc), acc.size(), acc + "            x_norm[...] = nl.multiply(x_norm, 2.0)\n");
  // Not out of the column loop that changes x_norm: the one site left puts the k loop's transposes
  // ahead of its matmuls (leaving no loop), as many as before.
  auto sites = sites_of(text, kTutorialArgs);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("out_of"), "0");
  EXPECT_NE(sites[0].summary.find("ahead of its matmuls, in a loop before `for k`"), std::string::npos) << sites[0].summary;
  std::string after = loopnest::apply_site("k.py", text, kTutorialArgs, sites[0]);
  EXPECT_EQ(transposes_of(after, kTutorialArgs), transposes_of(text, kTutorialArgs)) << after;
  // Changed inside the k loop itself: nothing may go ahead of it either.
  const std::string load = "                w_tile = nl.load(w[k, :, nl.ds(n * TILE_N, TILE_N)])\n";
  ASSERT_NE(text.find(load), std::string::npos) << text;
  text.replace(text.find(load), load.size(), load + "                x_norm[...] = nl.multiply(x_norm, 2.0)\n");
  EXPECT_TRUE(sites_of(text, kTutorialArgs).empty());
}

// A P @ V loop of nl.matmul(e[:, j-block], v_j), e made before the loop in the row tile's
// iteration: no loop to leave, so the loop's transposes go ahead of it into a buffer of its tiles
// (the Tensor Engine no longer waits on each block's PSUM copy before the next block's transpose).
// Two styles of one program: slices and reshape-free loads, index grids with generated names.
TEST(HoistTranspose, PutsTheTransposesOfAPAndVLoopAheadOfItsMatmuls) {
  const auto args = arrays({{2, 128, 512}, {4, 128, 64}});
  struct Case {
    std::string path, fill, matmul;
  };
  for (const Case& c : {Case{"/tests/kernels/pv_loop_implicit.py", "e_t[j, :, :] = nl.transpose(x=e[:, j * 128:(j + 1) * 128])",
                             "acc += nl.matmul(e_t[j, :, :], vj, transpose_x=True)"},
                        Case{"/tests/kernels/pv_loop_implicit_grid.py", "v4_t[i1, i_p, i_b] = nl.transpose(x=v4[i_p, i1 * 128 + i_b])",
                             "v5 += nl.matmul(v4_t[i1, i_p, i_b], v6, transpose_x=True)"}}) {
    SCOPED_TRACE(c.path);
    std::string text = read(source_dir() + c.path);
    auto sites = sites_of(text, args);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("out_of"), "0");
    EXPECT_EQ(sites[0].relieves, std::set<std::string>{"serial"});
    std::string after = loopnest::apply_site("k.py", text, args, sites[0]);
    // The same 2 x 4 transposes, now explicit and in a loop of their own before the matmuls'.
    EXPECT_EQ(transposes_of(text, args), 8);
    EXPECT_EQ(transposes_of(after, args), 8) << after;
    EXPECT_NE(after.find(c.fill), std::string::npos) << after;
    EXPECT_NE(after.find(c.matmul), std::string::npos) << after;
    EXPECT_LT(after.find(c.fill), after.find(c.matmul)) << after;
    // This site and every other the kernels offer keep their result.
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(c.path, text, args), 1u);
    // Applied, nothing is left to put ahead.
    EXPECT_TRUE(sites_of(after, args).empty()) << after;
  }
}

TEST(HoistTranspose, RefusesABufferThatDoesNotFit) {
  // K = 11264: 88 transposed tiles of 128 fp32 = 44 KiB per partition beside the row tiles' 3 x 44
  // KiB and the rest (4 KiB): over trn1's 176 KiB. K = 8192: 32 + 3 x 32 + 4 KiB fits.
  std::string text = read(source_dir() + kTutorial);
  EXPECT_TRUE(sites_of(text, arrays({{32, 128, 11264}, {88, 128, 2048}})).empty());
  auto fits = sites_of(text, arrays({{32, 128, 8192}, {64, 128, 2048}}));
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_NE(fits[0].summary.find("(32 KiB per partition, 132 KiB with the other tiles, of 176 KiB)"), std::string::npos)
      << fits[0].summary;
}

// The chain of transpose_scale_{tiles,grid,api}.py (one program in three styles) and of
// transpose_multiply_rows.py (nc_transpose, nl.multiply by a broadcast column): per column block,
// the row tile's K blocks transposed on the Tensor Engine, copied out of PSUM and scaled by gamma
// before the matmul. 2 row tiles x 2 column blocks x 2 K blocks.
const std::vector<loopnest::ArgSpec> kScaleArgs = arrays({{256, 256}, {2, 128, 1024}, {256, 1}});
const std::vector<std::string> kScaleStyles = {"/tests/kernels/transpose_scale_tiles.py",
                                               "/tests/kernels/transpose_scale_grid.py",
                                               "/tests/kernels/transpose_scale_api.py",
                                               "/tests/kernels/transpose_multiply_rows.py"};

TEST(HoistTranspose, MovesTheWholeInvariantChainOutOfTheColumnLoopInEveryStyle) {
  std::set<std::string> keys;
  for (const auto& path : kScaleStyles) {
    SCOPED_TRACE(path);
    std::string text = read(source_dir() + path);
    auto sites = sites_of(text, kScaleArgs);
    ASSERT_EQ(sites.size(), 1u);
    keys.insert(sites[0].key());
    EXPECT_EQ(sites[0].params.at("out_of"), "1");
    EXPECT_NE(sites[0].summary.find("with the 2 step(s) after it up to the matmul"), std::string::npos)
        << sites[0].summary;
    // Transposes 2 x 2 x 2 -> 2 x 2; the copy and the scaling with them (8 + 8 -> 4 + 4), the rest
    // (the norm's 4 instructions per row tile in the three styles, the result copy per column block)
    // as they were.
    int64_t transposes = transposes_of(text, kScaleArgs), vector = elementwise_of(text, kScaleArgs);
    EXPECT_EQ(transposes, 8);
    std::string after = loopnest::apply_site("k.py", text, kScaleArgs, sites[0]);
    EXPECT_EQ(transposes_of(after, kScaleArgs), 4) << after;
    EXPECT_EQ(vector - elementwise_of(after, kScaleArgs), 8) << after;
    EXPECT_TRUE(sites_of(after, kScaleArgs).empty()) << after;
  }
  // The same site (anchor, parameters) in every style.
  EXPECT_EQ(keys.size(), 1u);
}

TEST(HoistTranspose, RefusesAChainThatReadsTheColumnBlockOrWhoseTilesAreReadElsewhere) {
  std::string text = read(source_dir() + kScaleStyles[0]);
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    EXPECT_NE(t.find(from), std::string::npos) << from;
    if (t.find(from) != std::string::npos) t.replace(t.find(from), from.size(), to);
    return t;
  };
  // Gamma chosen by the column block: the scaling depends on n.
  EXPECT_TRUE(sites_of(edit("operand0=g_cols[k])", "operand0=g_cols[n])"), kScaleArgs).empty());
  // Gamma rewritten inside the column loop: the chain's input changes there.
  const std::string mm = "                acc += nisa.nc_matmul(xg, wt)\n";
  EXPECT_TRUE(sites_of(edit(mm, mm + "                g_cols[k] = nl.multiply(g_cols[k], 2.0)\n"), kScaleArgs).empty());
  // The copied tile also stored per column block: it is read with n's index outside the chain.
  EXPECT_TRUE(
      sites_of(edit(mm, mm + "                nl.store(out[m * 128:(m + 1) * 128, n * NB:n * NB + 128], value=xT)\n"),
               kScaleArgs)
          .empty());
  // The unedited kernel has the site (the edits above are what removes it).
  EXPECT_EQ(sites_of(text, kScaleArgs).size(), 1u);
}

}  // namespace

// The transposed block loaded inside the column loop itself (generated code: one flat loop over
// (row, column) split by `//` / `%`; the newer API's dma_copy into a declared tile): the load moves
// out with the transpose and its copy (`loads=1`), fused into one fill loop where the load's tile
// is one tile of the iteration again. 2 row tiles x 2 column blocks x 2 K blocks: transposes and
// loads of `a` 8 -> 4, `b`'s loads as they were. The same site in both styles (the flat one split).
TEST(HoistTranspose, TakesTheLoadOfTheTransposedBlockAlongInEveryStyle) {
  const auto args = arrays({{256, 256}, {256, 1024}});
  auto loads = [&](const std::string& text) {
    return executed(text, args, [](const loopnest::Op& op) { return op.cls == loopnest::OpClass::Load; });
  };
  std::set<std::string> keys;
  for (const std::string path : {"/tests/kernels/flat_transpose_matmul.py", "/tests/kernels/transpose_per_column_api.py"}) {
    SCOPED_TRACE(path);
    std::string text = read(source_dir() + path);
    auto sites = sites_of(text, args);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("loads"), "1");
    EXPECT_EQ(sites[0].params.at("out_of"), "1");
    keys.insert(sites[0].anchor + " out_of=" + sites[0].params.at("out_of"));
    EXPECT_EQ(transposes_of(text, args), 8);
    EXPECT_EQ(loads(text), 16);  // a's 8 and b's 8
    std::string after = loopnest::apply_site("k.py", text, args, sites[0]);
    EXPECT_EQ(transposes_of(after, args), 4) << after;
    EXPECT_EQ(loads(after), 12) << after;
    // The fill writes the buffer: the transpose itself (legacy: the compiler's PSUM copy), or the
    // author's copy out of PSUM (the newer API, whose Tensor Engine writes a PSUM dst).
    bool legacy = after.find("a_blk_t[kk, :, :] = nisa.nc_transpose(a_blk)") != std::string::npos;
    bool api = after.find("nisa.tensor_copy(dst=a_blk_t[:, kk, :], src=a_ps)") != std::string::npos;
    EXPECT_TRUE(legacy != api) << after;
    EXPECT_TRUE(sites_of(after, args).empty()) << after;
  }
  EXPECT_EQ(keys.size(), 1u);
}

// The load is taken along only when it is the tile's one writer: a block scaled in place after its
// load (by a number: the same in every column block) is not hoisted with it.
TEST(HoistTranspose, LeavesATransposedBlockWrittenByMoreThanItsLoad) {
  const auto args = arrays({{256, 256}, {256, 1024}});
  std::string text = read(source_dir() + "/tests/kernels/transpose_per_column_api.py");
  const std::string load = "src=a[r * 128:(r + 1) * 128, kk * 128:(kk + 1) * 128])\n";
  ASSERT_NE(text.find(load), std::string::npos);
  text.insert(text.find(load) + load.size(),
              "                nisa.tensor_scalar(dst=a_blk, data=a_blk, op0=nl.multiply, operand0=2.0)\n");
  EXPECT_TRUE(sites_of(text, args).empty());
}

// The transpose written as the inner call of its copy (`blk_t = nl.copy(nl.transpose(blk),
// dtype=..)`, `nisa.tensor_copy(nisa.nc_transpose(blk))`, the newer API's `nl.copy(nl.transpose(..))`
// after a dma_copy) is the chain's first step too: the statement is split and the load, the
// transpose (and in the newer API its copy) leave the column loop. The same site in the three
// spellings; transposes 8 -> 4, loads 16 -> 12; the kernel keeps its result (the corpus test).
TEST(HoistTranspose, FindsATransposeNestedInItsCopyInEveryStyle) {
  const auto args = arrays({{256, 256}, {256, 1024}});
  auto loads = [&](const std::string& text) {
    return executed(text, args, [](const loopnest::Op& op) { return op.cls == loopnest::OpClass::Load; });
  };
  std::set<std::string> keys;
  for (const std::string path : {"/tests/kernels/nested_transpose_rows.py", "/tests/kernels/nested_transpose_rows_isa.py",
                                 "/tests/kernels/nested_transpose_rows_api.py"}) {
    SCOPED_TRACE(path);
    std::string text = read(source_dir() + path);
    auto sites = sites_of(text, args);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("loads"), "1");
    keys.insert(sites[0].anchor + " out_of=" + sites[0].params.at("out_of"));
    EXPECT_EQ(transposes_of(text, args), 8);
    EXPECT_EQ(loads(text), 16);
    std::string after = loopnest::apply_site("k.py", text, args, sites[0]);
    EXPECT_EQ(transposes_of(after, args), 4) << after;
    EXPECT_EQ(loads(after), 12) << after;
    EXPECT_TRUE(sites_of(after, args).empty()) << after;
  }
  EXPECT_EQ(keys.size(), 1u);
}
