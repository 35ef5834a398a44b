// free_size on a size the kernel takes as a parameter with a default the task leaves
// (src/loopnest/param_size.cpp): the default doubled or halved in the source, every use following
// it. Before session 20 such a size (`def kernel(..., chunk=1024)`) offered no site: on the form it
// is literal shapes and trips, and other literals derived from it (`h[:, chunk - 1:chunk]`) that no
// move on the form rescales. That the sites keep the result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's (tests/kernels/param_chunk_rows.py).
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/literal_constants.h"
#include "loopnest/transform.h"
#include "nki/ast_printer.h"
#include "nki/parser.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::vector<loopnest::Site> free_size_sites(const std::string& path, const std::string& text,
                                            const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "free_size" && s.params.count("var")) out.push_back(s);
  return out;
}

TEST(ParamSize, ChangesADefaultSizeTheTaskLeaves) {
  std::string path = source_dir() + "/tests/kernels/param_chunk_rows.py";
  std::string text = read(path);
  auto args = arrays({{128, 2048}});
  auto sites = free_size_sites(path, text, args);
  ASSERT_EQ(sites.size(), 3u);
  std::set<std::string> values;
  for (const auto& s : sites) {
    EXPECT_EQ(s.params.at("var"), "chunk");
    EXPECT_EQ(s.params.at("from"), "512");
    values.insert(s.params.at("value"));
    std::string after = loopnest::apply_site(path, text, args, s);
    // The default alone changes: the kernel as written, with its own names.
    std::string want = text;
    want.replace(want.find("def kernel(x, chunk=512)"), 24, "def kernel(x, chunk=" + s.params.at("value") + ")");
    EXPECT_EQ(after, want);
  }
  EXPECT_EQ(values, (std::set<std::string>{"128", "256", "1024"}));
}

TEST(ParamSize, LeavesDefaultsThatAreNotSizesOrSizeNothing) {
  // `bufs=3` is no power of two; `spare=512` sizes nothing the form holds; `block=64` is below a
  // partition's width of columns.
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, bufs=3, spare=512, block=64):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(cols // 512):
        tile = nl.load(x[:, j * 512:(j + 1) * 512])
        nl.store(out[:, j * 512:(j + 1) * 512], value=nl.exp(tile))
    return out
)";
  EXPECT_TRUE(free_size_sites("kernel.py", text, arrays({{128, 2048}})).empty());
}

// A size given as the default of a parameter of the launched kernel (`_rows[C // 128](x, w)` of
// `def _rows(x, w, chunk=1024)`) or of a helper the kernel calls (`_block(x, w, out, r0)` of
// `cols=1024`), which no call passes: the default edited, `default=callee` (held-out author57's
// mamba kept its 1024-column chunks: the entry's parameters were the only defaults read).
TEST(ParamSize, ChangesTheDefaultOfALaunchedKernelOrAHelperThatNoCallPasses) {
  const auto args = arrays({{256, 2048}, {4, 2048}});
  for (const char* name : {"row_broadcast_launch_default.py", "row_broadcast_helper_default_api.py"}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    std::set<std::string> values;
    for (const auto& s : free_size_sites(path, read(path), args)) {
      EXPECT_EQ(s.params.at("default"), "callee") << name;
      EXPECT_EQ(s.params.at("from"), "1024") << name;
      values.insert(s.params.at("value"));
    }
    EXPECT_EQ(values, (std::set<std::string>{"256", "512", "2048"})) << name;
  }
}

// The same helper default, but every call passes the parameter (`cols=1024`) or the helper also
// spells its value as a literal: the edit would size nothing, or not every use would follow it.
TEST(ParamSize, LeavesAHelperDefaultEveryCallPassesOrTheHelperSpells) {
  auto kernel = [](const std::string& call, const std::string& window) {
    return "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
           "def _exp_rows(x, out, cols=1024):\n"
           "    for j in nl.affine_range(x.shape[1] // cols):\n"
           "        tile = nl.load(x[:, j * cols:j * cols + " + window + "])\n"
           "        nl.store(out[:, j * cols:j * cols + " + window + "], value=nl.exp(tile))\n\n\n"
           "@nki.jit\ndef kernel(x):\n"
           "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
           "    " + call + "\n"
           "    return out\n";
  };
  const auto args = arrays({{128, 2048}});
  EXPECT_EQ(free_size_sites("k.py", kernel("_exp_rows(x, out)", "cols"), args).size(), 3u);
  EXPECT_TRUE(free_size_sites("k.py", kernel("_exp_rows(x, out, cols=1024)", "cols"), args).empty());
  EXPECT_TRUE(free_size_sites("k.py", kernel("_exp_rows(x, out)", "1024"), args).empty());
}

// A library kernel's tile size is a module constant its entry point passes on (`COLS = 2048`,
// `_impl(x, out, ROWS, COLS)`), its trips ceil-divided and its tails masked for any value: the
// constant halved and doubled, the kernel lifted again. Before session 23 only a parameter's
// default was a site, and such a kernel kept its first chunk width (tests/kernels/module_chunk_rows.py;
// a constant sizing nothing, or no power of two, is no site).
// The free_size sites of kernel file `name` (tests/kernels/) on the module constant `var`, valued
// `from` and written `var = written` (the value itself unless given): each applied changes that
// line alone, to the new value as a literal (the kernel as written); the values offered.
std::set<std::string> module_chunk_values(const std::string& name, const std::vector<loopnest::ArgSpec>& args,
                                          const std::string& from, const std::string& var = "CHUNK",
                                          std::string written = "") {
  if (written.empty()) written = from;
  std::string path = source_dir() + "/tests/kernels/" + name;
  std::string text = read(path);
  std::set<std::string> values;
  for (const auto& s : free_size_sites(path, text, args)) {
    EXPECT_EQ(s.params.at("var"), var);
    EXPECT_EQ(s.params.at("default"), "module");
    EXPECT_EQ(s.params.at("from"), from);
    values.insert(s.params.at("value"));
    std::string want = text;
    const std::string line = var + " = " + written;
    want.replace(want.find("\n" + line + "\n") + 1, line.size(), var + " = " + s.params.at("value"));
    EXPECT_EQ(loopnest::apply_site(path, text, args, s), want);
  }
  return values;
}

// A Triton port's block count through a module helper (`cdiv(cols, CHUNK)`, `(a + b - 1) // b`),
// its tail masked: written for any width, as an inline ceil-division is (held-out author48's mamba
// kept its 1024-column blocks, two PSUM banks wide, before session 38).
TEST(ParamSize, ChangesAModuleConstantCeilDividedThroughAHelper) {
  EXPECT_EQ(module_chunk_values("cdiv_chunk_rows.py", arrays({{128, 2048}}), "512"),
            (std::set<std::string>{"128", "256", "1024"}));
}

// A width whose ragged last window a mask cuts (`ok = col < M` on loads, instructions and stores;
// held-out author51's mamba, TILE_F = 2048 over 7168 columns): every value writes up to the row's
// end, where the mask stops it. Before session 39 the written-elements check read the unmasked
// windows (columns 0..3071 at 1024, 0..2559 at 512) and refused every value but 4096.
TEST(ParamSize, ChangesAKernelConstantWhoseRaggedWindowAMaskCuts) {
  const std::string path = source_dir() + "/tests/kernels/masked_chunk_rows.py";
  const std::string text = read(path);
  const auto args = arrays({{128, 2560}});
  std::set<std::string> values;
  for (const auto& s : free_size_sites(path, text, args)) {
    EXPECT_EQ(s.params.at("var"), "TILE_F");
    EXPECT_EQ(s.params.at("default"), "local");
    values.insert(s.params.at("value"));
    std::string after = loopnest::apply_site(path, text, args, s);
    std::string want = text;
    want.replace(want.find("TILE_F = 1024"), 13, "TILE_F = " + s.params.at("value"));
    EXPECT_EQ(after, want);
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, after, args), loopnest_test::run(path, text, args)), 1e-6);
  }
  EXPECT_EQ(values, (std::set<std::string>{"256", "512", "2048"}));
}

// A width written as an expression of the hardware's limits (`CHUNK = 2 * nl.tile_size.
// gemm_moving_fmax`, held-out author41's mamba `SEQ_TILE`): its value is the size, and the site
// writes the new one as a literal in place of the expression. Before session 39 only a literal was
// a site, and that mamba kept two-bank chunks (1.851 ms; at 512 by hand 1.560 ms).
TEST(ParamSize, ChangesAModuleConstantWrittenAsAnExpressionOfTileLimits) {
  EXPECT_EQ(module_chunk_values("expr_chunk_rows.py", arrays({{128, 2560}}), "1024", "CHUNK",
                                "2 * nl.tile_size.gemm_moving_fmax"),
            (std::set<std::string>{"256", "512", "2048"}));
}

// A width chosen to divide the data without being a power of two (`COLS = 7168 // 4`, 1792
// columns, held-out author40's mamba chunks): a multiple of 128 is a tile size too, and its whole
// fractions and multiples are offered.
TEST(ParamSize, ChangesAModuleConstantThatIsAMultipleOf128NotAPowerOfTwo) {
  EXPECT_EQ(module_chunk_values("nonpow2_chunk_rows.py", arrays({{128, 7168}}), "1792", "COLS", "7168 // 4"),
            (std::set<std::string>{"448", "896", "3584"}));
}

TEST(ParamSize, ChangesAModuleConstantSize) {
  EXPECT_EQ(module_chunk_values("module_chunk_rows.py", arrays({{128, 2048}}), "512"),
            (std::set<std::string>{"128", "256", "1024"}));
}

}  // namespace

namespace {

// A module constant the kernel reads itself, but with its ragged last chunk written out
// (`(cols + CHUNK - 1) // CHUNK` chunks, the last clamped by `min(CHUNK, cols - c0)`): written
// for any width, so a site like a constant passed to an implementation (an outside author's scan
// kept its 2048-column chunks, whose tail stopped every hoisting move, before session 25). The
// partition count it only reads stays no site (tests/kernels/ragged_chunk_rows.py).
TEST(ParamSize, ChangesAModuleConstantWhoseRaggedTailTheKernelWrites) {
  EXPECT_EQ(module_chunk_values("ragged_chunk_rows.py", arrays({{128, 2560}}), "1024"),
            (std::set<std::string>{"256", "512", "2048"}));
}

// The same kernel after its chunk loop was coarsened by 2 (literal 2048-wide windows, the trip still
// `n_chunks // 2`): at 4096 columns every value of CHUNK would change which columns are written
// (2048: columns 0..2047 only; 512: past the row's end), so none is a site.
TEST(ParamSize, NoModuleConstantSiteThatChangesWhatTheKernelWrites) {
  EXPECT_EQ(module_chunk_values("ragged_chunk_rows.py", arrays({{128, 4096}}), "1024"),
            (std::set<std::string>{"256", "512", "2048"}));
  EXPECT_TRUE(module_chunk_values("ragged_chunk_rows_coarsened.py", arrays({{128, 4096}}), "1024").empty());
  // A window printed literally beside tiles that follow the constant: any new value would copy a
  // 1024-wide window into a tile of another width.
  EXPECT_TRUE(module_chunk_values("ragged_chunk_rows_literal_window.py", arrays({{128, 4096}}), "1024").empty());
}

}  // namespace

namespace {

bool offers(const std::vector<loopnest::Site>& sites, const std::string& transform) {
  return std::any_of(sites.begin(), sites.end(), [&](const loopnest::Site& s) { return s.transform == transform; });
}

// A tile size kept as the kernel's own constant (`TF = 1024` at the top of its body, an HPC author's
// index-space style), its trip ceil-divided and its tiles masked: a site like a module constant's
// (before session 36 none: an outside author's selective scan kept its 1024-wide fp32 accumulator,
// two PSUM banks, in SBUF). Quartered, halved and doubled: 2048-wide tiles reach past the
// 3072-column rows, where the kernel's masks stop them (before session 39 the written-elements check
// read the windows unmasked and refused 2048); the partition count TP, also ceil-divided, is no
// site. At TF = 512 the accumulator fits a bank and psum_accumulate is offered, as it is not at 1024.
TEST(ParamSize, ChangesAKernelConstantWhoseRaggedTailTheKernelWrites) {
  const std::string path = source_dir() + "/tests/kernels/local_chunk_scan_grid.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 3072}, {4, 3072}});
  std::set<std::string> values;
  for (const auto& s : free_size_sites(path, text, args)) {
    EXPECT_EQ(s.params.at("var"), "TF");
    EXPECT_EQ(s.params.at("default"), "local");
    EXPECT_EQ(s.params.at("from"), "1024");
    values.insert(s.params.at("value"));
    std::string after = loopnest::apply_site(path, text, args, s);
    std::string want = text;
    want.replace(want.find("    TF = 1024\n") + 4, 9, "TF = " + s.params.at("value"));
    EXPECT_EQ(after, want);
    EXPECT_EQ(offers(loopnest::find_sites(loopnest::lift_source(path, after, args)), "psum_accumulate"),
              s.params.at("value") == "512" || s.params.at("value") == "256");
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, after, args), loopnest_test::run(path, text, args)), 1e-6)
        << s.params.at("value");
  }
  EXPECT_EQ(values, (std::set<std::string>{"256", "512", "2048"}));
  EXPECT_FALSE(offers(loopnest::find_sites(loopnest::lift_source(path, text, args)), "psum_accumulate"));
}

// A kernel constant bound again (in a loop, or by a second assignment) or only read (a slice width
// no trip is ceil-divided by) is no site: its value may be tied to the rest of the text.
TEST(ParamSize, LeavesKernelConstantsReboundOrOnlyRead) {
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    W = 512
    V = 1024
    n = (cols + V - 1) // V
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(cols // W):
        tile = nl.load(x[:, j * W:(j + 1) * W])
        nl.store(out[:, j * W:(j + 1) * W], value=nl.exp(tile))
    for i in range(n):
        V = 1024
    return out
)";
  EXPECT_TRUE(free_size_sites("kernel.py", text, arrays({{128, 2048}})).empty());
}

}  // namespace

namespace {

// The sizes an author binds once at module level, literal or computed from literals, earlier sizes
// and `nl.tile_size` limits (loopnest/literal_constants.h); a name bound twice, or to anything not
// evaluable before the kernel runs, is none.
TEST(SizeConstants, EvaluatesExpressionsOfLiteralsEarlierSizesAndTileLimits) {
  const std::string text = R"(import nki.language as nl
P = nl.tile_size.pmax
FREE = 4 * nl.tile_size.gemm_moving_fmax // 2
COLS = 7168 // 4
HALF = -(-COLS // 2)
N_TILE = 2 * P + FREE % 384
SCALE = 0.5
RAGGED = FREE // 0
SHAPE = x.shape[1]
TWICE = 256
TWICE = 512
AFTER = LATER * 2
LATER = 8
)";
  auto module = nki::parse_module(std::make_shared<nki::SourceFile>(nki::SourceFile{"sizes.py", text}));
  std::map<std::string, int64_t> got;
  for (const auto& b : loopnest::module_size_constants(*module)) got[b.name] = b.value;
  EXPECT_EQ(got, (std::map<std::string, int64_t>{
                     {"P", 128}, {"FREE", 1024}, {"COLS", 1792}, {"HALF", 896}, {"N_TILE", 512}, {"LATER", 8}}));
}

// Sizes unpacked from a display (`P, F = 128, 512`) are each a size; a tuple bound from anything else
// (`A, B = sizes()`) binds its names again. A kernel's local bound to an entry of a module dict of
// sizes (`F = TILE["F"]`) is that entry: its binding's expression is the dict's value, where an edit
// changes every reader of the entry (the helpers' defaults `cols=TILE["F"]` too).
TEST(SizeConstants, ReadsTupleUnpackingAndEntriesOfAModuleDictOfSizes) {
  const std::string text = R"(import neuronxcc.nki.language as nl
from neuronxcc import nki
ROWS, COLS = 128, 2048
A, B = 256, 512
A, B = sizes()
TILE = {"P": 128, "F": 4 * 256, 7: 3}
AGAIN = {"F": 512}
AGAIN = {"F": 1024}


@nki.jit
def kernel(x):
    P, F = TILE["P"], TILE["F"]
    G = AGAIN["F"]
    H, K = 64, 2 * 64
    return x
)";
  auto module = nki::parse_module(std::make_shared<nki::SourceFile>(nki::SourceFile{"sizes.py", text}));
  std::map<std::string, int64_t> got;
  for (const auto& b : loopnest::module_size_constants(*module)) got[b.name] = b.value;
  EXPECT_EQ(got, (std::map<std::string, int64_t>{{"ROWS", 128}, {"COLS", 2048}}));
  const nki::FunctionCode* fn = nullptr;
  for (const auto& st : module->body)
    if (st->kind == nki::StmtKind::FunctionDef) fn = static_cast<const nki::FunctionDefStmt&>(*st).code.get();
  ASSERT_NE(fn, nullptr);
  std::map<std::string, std::pair<int64_t, std::string>> local;
  for (const auto& b : loopnest::local_size_constants(*fn, module.get()))
    local[b.name] = {b.value, nki::print_expr(*b.expr)};
  EXPECT_EQ(local, (std::map<std::string, std::pair<int64_t, std::string>>{
                       {"P", {128, "128"}}, {"F", {1024, "4 * 256"}}, {"H", {64, "64"}}, {"K", {128, "2 * 64"}}}));
  // Without the module, the dict's entries are unknown.
  std::set<std::string> names;
  for (const auto& b : loopnest::local_size_constants(*fn)) names.insert(b.name);
  EXPECT_EQ(names, (std::set<std::string>{"H", "K"}));
}

}  // namespace
