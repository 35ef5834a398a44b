// The rewrite catalogue on small kernels: golden before/after sources (tests/golden/rewrite/
// NAME.py -> NAME.TRANSFORM.expected.py, first site of TRANSFORM), numeric equivalence through the
// interpreter, and legality: illegal applications are refused or caught by the numeric check.
// Set ACCELOPT_UPDATE_GOLDEN=1 to rewrite the expected files.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

namespace fs = std::filesystem;
using builtin_test::golden_dir;
using builtin_test::read;
using builtin_test::sites_of;

struct GoldenCase {
  std::string source_path, expected_path, transform;
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    std::string name = entry.path().filename().string();
    const std::string suffix = ".expected.py";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string stem = name.substr(0, name.size() - suffix.size());  // NAME.TRANSFORM
    auto dot = stem.find('.');
    if (dot == std::string::npos) continue;
    cases.push_back({golden_dir() + "/" + stem.substr(0, dot) + ".py", entry.path().string(), stem.substr(dot + 1)});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.expected_path < b.expected_path; });
  return cases;
}

TEST(BuiltinRewrite, EveryTransformHasAGoldenCase) {
  std::set<std::string> covered;
  for (const auto& c : golden_cases()) covered.insert(c.transform);
  for (const auto& t : catalogue()) EXPECT_TRUE(covered.count(t->name())) << "no golden file for " << t->name();
}

TEST(BuiltinRewrite, GoldenBeforeAfterAndNumericallyEquivalent) {
  bool update = std::getenv("ACCELOPT_UPDATE_GOLDEN") != nullptr;
  auto cases = golden_cases();
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected_path);
    std::string before = read(c.source_path);
    auto sites = sites_of(before, c.transform);
    ASSERT_FALSE(sites.empty()) << "no " << c.transform << " site in " << c.source_path;
    std::string after = apply_site(before, sites[0]);
    if (update) std::ofstream(c.expected_path) << after;
    EXPECT_EQ(after, read(c.expected_path));
    // The rewrite prints valid NKI that parses back to itself...
    EXPECT_EQ(apply_site(before, sites[0]), after);
    EXPECT_NO_THROW(parse_source(after));
    // ...and computes the same outputs.
    auto shapes = builtin_test::input_shapes(before);
    auto want = builtin_test::run_source(before, shapes);
    auto got = builtin_test::run_source(after, shapes);
    EXPECT_LT(builtin_test::rel_error(got, want), 2e-5);
  }
}

TEST(BuiltinRewrite, EveryFoundSiteOfTheGoldenKernelsApplies) {
  for (const char* name : {"silu", "scalar_chain", "loops", "matmul", "illegal", "fold_attrs"}) {
    std::string source = read(golden_dir() + "/" + name + ".py");
    for (const auto& site : find_sites(source)) {
      SCOPED_TRACE(site.key());
      std::string after;
      ASSERT_NO_THROW(after = apply_site(source, site));
      EXPECT_NE(after, source);
      EXPECT_NO_THROW(parse_source(after));
    }
  }
}

// The text folds where the merged calls carry more than the fold prints (tests/golden/rewrite/
// fold_attrs.py). fold_into_activation multiplied a compound constant into the scale as text (`lo +
// hi * (2.0)`: 0.75 for 1.0); fuse_silu took exp(b - x) for exp(-x), dropping the bias;
// fold_tensor_scalar dropped a reciprocal's dtype=nl.int32; both moved a step's data past a
// statement binding its name again. Every site left keeps the outputs.
TEST(BuiltinRewrite, TextFoldsKeepWhatTheMergedCallsCarry) {
  std::string source = read(golden_dir() + "/fold_attrs.py");
  EXPECT_TRUE(sites_of(source, "fuse_silu").empty());
  EXPECT_TRUE(sites_of(source, "fold_tensor_scalar").empty());
  auto into = sites_of(source, "fold_into_activation");
  ASSERT_EQ(into.size(), 1u);  // `half`; not `scaled`, read after `u` is bound again
  EXPECT_NE(apply_site(source, into[0]).find("scale=(lo + hi) * 2.0"), std::string::npos);
  auto shapes = builtin_test::input_shapes(source);
  auto want = builtin_test::run_source(source, shapes);
  int checked = 0;
  for (const auto& site : find_sites(source)) {
    SCOPED_TRACE(site.key());
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(apply_site(source, site), shapes), want), 2e-5);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(BuiltinRewrite, KeepsCommentsOfSurvivingStatements) {
  std::string after = read(golden_dir() + "/silu.fuse_silu.expected.py");
  EXPECT_NE(after.find("# x * sigmoid(x)"), std::string::npos);
  EXPECT_NE(after.find("# x / (1 + exp(-x)) per 256-column"), std::string::npos);
  EXPECT_NE(after.find("nisa.activation(op=nl.silu, data=xs)"), std::string::npos);
}

TEST(BuiltinRewrite, RefusesIllegalApplications) {
  std::string source = read(golden_dir() + "/illegal.py");
  // buf[i] = nl.load(a[..i..]) depends on the loop: nothing to hoist.
  EXPECT_TRUE(sites_of(source, "hoist_invariant").empty());
  // The second loop reads buf[3 - i], stored by other iterations of the first: no fusion.
  EXPECT_TRUE(sites_of(source, "fuse_loops").empty());
  // for c in range(r + 1) depends on r: no interchange.
  EXPECT_TRUE(sites_of(source, "interchange").empty());
}

// A perfect nest of sequential loops whose inner iterations hand a carry tile on (a scan across
// blocks, as a held-out selective-scan kernel writes it): swapping the loops would read the carry
// of another state's block. Only `nl.affine_range` promises independent iterations, so the text
// rewrite (used when a kernel does not lift to the loop-nest form) offers no interchange there.
TEST(BuiltinRewrite, NoInterchangeOfSequentialLoopsCarryingATile) {
  const std::string source =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n\n"
      "@nki.jit\ndef kernel(x):\n"
      "    out = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    carry = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    for s in nl.sequential_range(2):\n"
      "        for blk in nl.sequential_range(4):\n"
      "            t = nl.load(x[:, blk * 256:(blk + 1) * 256])\n"
      "            y = nl.add(t, carry)\n"
      "            carry[...] = nl.copy(y[:, 255:256])\n"
      "            nl.store(out[:, blk * 256:(blk + 1) * 256], value=y)\n"
      "    return out\n";
  EXPECT_TRUE(sites_of(source, "interchange").empty());
  std::string affine = source;
  for (const char* loop : {"nl.sequential_range(2)", "nl.sequential_range(4)"})
    affine.replace(affine.find(loop), std::string(loop).size(),
                   std::string("nl.affine_range(") + std::string(loop).substr(std::string("nl.sequential_range(").size()));
  EXPECT_EQ(sites_of(affine, "interchange").size(), 1u);  // the author's affine_range is taken at its word
}

TEST(BuiltinRewrite, FreeSizeNeverExceedsTheMatmulMovingLimit) {
  std::string source = read(golden_dir() + "/matmul.py");
  for (const auto& s : sites_of(source, "free_size")) EXPECT_LE(std::stoi(s.params.at("value")), 512) << s.key();
}

TEST(BuiltinRewrite, StaleOrUnknownSitesAreErrors) {
  std::string source = read(golden_dir() + "/silu.py");
  Site stale;
  stale.transform = "fuse_silu";
  stale.params = {{"line", "3"}, {"func", "silu"}};
  EXPECT_THROW(apply_site(source, stale), RewriteError);
  stale.transform = "no_such_transform";
  EXPECT_THROW(apply_site(source, stale), RewriteError);
  EXPECT_THROW(apply_site("def broken(:\n", stale), RewriteError);
  EXPECT_TRUE(find_sites("this is not python").empty());
}

TEST(BuiltinRewrite, TheNumericCheckCatchesAnIllegalFreeSize) {
  // silu.py has 1024 columns; a 2048-column block makes `cols // block` zero iterations, so the
  // output is never written. The rewrite is syntactically fine; the check must reject it.
  std::string source = read(golden_dir() + "/silu.py");
  Site grow;
  for (auto& s : sites_of(source, "free_size"))
    if (s.params.count("var") && s.params.at("value") == "1024") grow = s;
  ASSERT_FALSE(grow.transform.empty());
  std::string twice = apply_site(apply_site(source, grow), [&] {
    Site again = grow;
    again.params["from"] = "1024";
    again.params["value"] = "2048";
    return again;
  }());
  auto shapes = builtin_test::input_shapes(source);
  double err = INFINITY;
  try {
    err = builtin_test::rel_error(builtin_test::run_source(twice, shapes), builtin_test::run_source(source, shapes));
  } catch (const std::exception&) {
  }
  EXPECT_GT(err, 1e-3);
}

TEST(BuiltinRewrite, BaselineKernelsOfferTheBigWins) {
  std::string silu = read(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels/silu_M4096_N7168_0.py");
  EXPECT_FALSE(sites_of(silu, "fuse_silu").empty());
  EXPECT_FALSE(sites_of(silu, "free_size").empty());
  std::string swiglu = read(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels/swiglu_M4096_N3072_K1024_0.py");
  EXPECT_FALSE(sites_of(swiglu, "fuse_silu").empty());
  EXPECT_FALSE(sites_of(swiglu, "drop_psum_copy").empty());
  // Every baseline offers something to try (transpose_matmul: unroll_jam shares its rhs loads).
  for (const auto& entry : fs::directory_iterator(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels")) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(find_sites(read(entry.path().string())).empty());
  }
}

TEST(BuiltinRewrite, EngineMoveNeverPutsAPsumAccessOnGpSimd) {
  // GpSimd has no path to PSUM: a scale of a matmul result may move to the Scalar Engine only,
  // while the same op on an SBUF tile may also go to GpSimd.
  std::string kernel =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n"
      "@nki.jit\ndef kernel(a, b):\n"
      "    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    x = nl.load(a)\n    y = nl.load(b)\n"
      "    p = nisa.nc_matmul(x, y)\n"
      "    s = nisa.tensor_scalar(data=p, op0=nl.multiply, operand0=2.0)\n"
      "    t = nisa.tensor_scalar(data=s, op0=nl.multiply, operand0=2.0)\n"
      "    nl.store(out, value=t)\n    return out\n";
  std::set<std::string> psum_engines, sbuf_engines;
  for (const auto& site : sites_of(kernel, "engine_move"))
    (site.line() == 11 ? psum_engines : sbuf_engines).insert(site.params.at("engine"));
  EXPECT_EQ(psum_engines, (std::set<std::string>{"scalar", "vector"}));
  EXPECT_TRUE(sbuf_engines.count("gpsimd"));
}

// A tile a module function returns may be its PSUM accumulator (`up = project(x_t, w)`, held-out
// author50's swiglu: both gpsimd sites failed, "the GpSimd engine cannot access PSUM"): engine_move
// does not put an op reading it on GpSimd; a tile loaded in the kernel still may go there.
TEST(BuiltinRewrite, EngineMoveKeepsResultsOfTheModulesFunctionsOffGpSimd) {
  std::string kernel =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
      "def project(x, w):\n"
      "    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
      "    acc += nl.matmul(x, w, transpose_x=True)\n"
      "    return acc\n\n\n"
      "@nki.jit\ndef kernel(a, b, c):\n"
      "    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    up = project(nl.load(a), nl.load(b))\n"
      "    h = nl.multiply(up, up)\n"
      "    g = nl.multiply(nl.load(c), nl.load(c))\n"
      "    nl.store(out, value=nl.add(h, g))\n    return out\n";
  std::set<std::string> helper_engines, loaded_engines;
  for (const auto& site : sites_of(kernel, "engine_move")) {
    if (site.line() == 15) helper_engines.insert(site.params.at("engine"));  // h = up * up
    if (site.line() == 16) loaded_engines.insert(site.params.at("engine"));  // g = c * c
  }
  EXPECT_FALSE(helper_engines.empty());
  EXPECT_FALSE(helper_engines.count("gpsimd"));
  EXPECT_TRUE(loaded_engines.count("gpsimd"));
}

// A kernel written with nl.* only (no nisa import): engine_move's site spells the instruction
// it inserts `nisa.tensor_tensor(...)`, so the rewritten module imports nki.isa as nisa, in the
// kernel's own dialect; listed sites all apply to kernels that run (p10_where_clamp_scalars
// before it lifted: "name 'nisa' is not defined" on every engine_move site).
TEST(BuiltinRewrite, AnInsertedNisaCallBringsItsImport) {
  for (const std::string package : {"neuronxcc.nki", "nki"}) {
    SCOPED_TRACE(package);
    std::string kernel = "import " + package + " as nki\nimport " + package +
                         ".language as nl\n\n\n@nki.jit\ndef kernel(a, b):\n"
                         "    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                         "    d = nl.subtract(nl.load(a), nl.load(b))\n"
                         "    nl.store(out, value=d)\n    return out\n";
    auto sites = sites_of(kernel, "engine_move");
    ASSERT_FALSE(sites.empty());
    for (const auto& site : sites) {
      std::string out = apply_site(kernel, site);
      EXPECT_NE(out.find("import " + package + ".isa as nisa\n"), std::string::npos) << out;
      EXPECT_LT(out.find(".language as nl"), out.find(".isa as nisa")) << out;  // after the imports
      EXPECT_NE(out.find("nisa.tensor_tensor("), std::string::npos) << out;
    }
  }
  // A module that binds nisa already (at the top or inside the kernel) is left as it is.
  std::string bound =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\ndef kernel(a, b):\n"
      "    import neuronxcc.nki.isa as nisa\n"
      "    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    d = nl.subtract(nl.load(a), nl.load(b))\n"
      "    nl.store(out, value=d)\n    return out\n";
  for (const auto& site : sites_of(bound, "engine_move")) {
    std::string out = apply_site(bound, site);
    EXPECT_EQ(out.find("import neuronxcc.nki.isa as nisa"), out.rfind("import neuronxcc.nki.isa as nisa")) << out;
  }
}

// `nl.add(tile, coeffs[k])` with coeffs a Python list of floats is a tile plus a number: a
// tensor_tensor of it reads a float as data2 and is refused ("data2 of nisa.tensor_tensor must
// be an on-chip tile", p10_static_poly_horner). Only the two-tile multiply is a site.
TEST(BuiltinRewrite, EngineMoveTakesAnItemOfAHostListForANumber) {
  std::string kernel =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\ndef kernel(a):\n"
      "    coeffs = [1.0 / (k + 1) for k in range(3)]\n"
      "    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    t = nl.load(a)\n"
      "    acc = nl.add(nl.multiply(t, t), coeffs[2])\n"
      "    r = nl.add(acc, t)\n"
      "    nl.store(out, value=r)\n    return out\n";
  std::set<int> lines;
  for (const auto& site : sites_of(kernel, "engine_move")) lines.insert(site.line());
  EXPECT_EQ(lines, (std::set<int>{11})) << "only `r = nl.add(acc, t)` adds two tiles";
}

}  // namespace
}  // namespace agents::builtin

// The newer API writes through `dst=` (and nisa calls through their first argument): a loop whose
// first half writes a carry with nisa.tensor_copy(dst=...) that its second half reads cannot be
// split (nki_api mamba after chunk_rows: the split kernel failed its check, rel_l2 1.46).
TEST(BuiltinRewrite, DestinationFirstWritesKeepALoopWhole) {
  const std::string source = R"(import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    carry = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=carry, value=0.0)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    for chunk in nl.sequential_range(4):
        nisa.tensor_scalar(dst=carry, data=carry, op0=nl.add, operand0=1.0)
        y = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=t[:, chunk * 128:(chunk + 1) * 128], op0=nl.add, operand0=carry)
        nisa.dma_copy(dst=out[:, chunk * 128:(chunk + 1) * 128], src=y)
    return out
)";
  for (const auto& s : builtin_test::sites_of(source, "split_loop"))
    EXPECT_NE(s.params.at("at"), "1") << "split between the carry's write and its read";
}

// The text moves run where a kernel does not lift; they must see every way a loop changes a tile.
// hoist_invariant: an input the loop stores through a subscript or a `dst=` is new each iteration
// (`buf[...] = nl.load(x[i])` then `y = nl.multiply(buf, 2.0)` was hoisted and read the last rows only).
TEST(BuiltinRewrite, NoHoistOfAValueWhoseInputTheLoopWritesInPlace) {
  const std::string subscript = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((512, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        buf[...] = nl.load(x[i * 128:(i + 1) * 128, :])
        y = nl.multiply(buf, 2.0)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
)";
  EXPECT_TRUE(builtin_test::sites_of(subscript, "hoist_invariant").empty());
  std::string dst_first = subscript;
  const std::string store = "buf[...] = nl.load(x[i * 128:(i + 1) * 128, :])";
  dst_first.replace(dst_first.find(store), store.size(), "nisa.dma_copy(dst=buf, src=x[i * 128:(i + 1) * 128, :])");
  dst_first.insert(dst_first.find("\n\n\n"), "\nimport neuronxcc.nki.isa as nisa");
  EXPECT_TRUE(builtin_test::sites_of(dst_first, "hoist_invariant").empty());
  // The same multiply of a tile loaded before the loop is invariant.
  std::string invariant = subscript;
  invariant.replace(invariant.find("        " + store + "\n"), store.size() + 9, "");
  invariant.insert(invariant.find("    for i"), "    " + std::string("buf[...] = nl.load(x[0:128, :])\n"));
  EXPECT_EQ(builtin_test::sites_of(invariant, "hoist_invariant").size(), 1u) << invariant;
}

// sink_recompute: a value whose input a later statement or the consumer loop writes through `dst=`
// would be recomputed from the changed tile.
TEST(BuiltinRewrite, NoSinkOfAValueWhoseInputIsWrittenBeforeItsUse) {
  const std::string source = R"(import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    y = nl.multiply(t, 2.0)
    nisa.memset(dst=t, value=0.0)
    for c in nl.affine_range(4):
        nl.store(out[:, c * 128:(c + 1) * 128], value=nl.add(y[:, c * 128:(c + 1) * 128], t[:, c * 128:(c + 1) * 128]))
    return out
)";
  EXPECT_TRUE(builtin_test::sites_of(source, "sink_recompute").empty());
  std::string in_loop = source;
  const std::string between = "    nisa.memset(dst=t, value=0.0)\n";
  in_loop.replace(in_loop.find(between), between.size(), "");
  EXPECT_EQ(builtin_test::sites_of(in_loop, "sink_recompute").size(), 1u) << in_loop;
  in_loop.insert(in_loop.find("        nl.store"), "        nisa.memset(dst=t[:, c * 128:(c + 1) * 128], value=0.0)\n");
  EXPECT_TRUE(builtin_test::sites_of(in_loop, "sink_recompute").empty()) << in_loop;
}

// fuse_loops: the second loop reading a tile the first writes through `dst=`, or a name the first
// binds (its value after the loop), or the first reading what the second overwrites, is no fusion;
// two loops with their own temporaries of one name are.
TEST(BuiltinRewrite, NoFusionOfLoopsThatHandATileOn) {
  const std::string source = R"(import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for c in nl.affine_range(4):
        t = nl.load(x[:, c * 128:(c + 1) * 128])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    for c in nl.affine_range(4):
        t = nl.load(x[:, c * 128:(c + 1) * 128])
        nl.store(out[:, c * 128:(c + 1) * 128], value=nl.add(t, acc))
    return out
)";
  EXPECT_TRUE(builtin_test::sites_of(source, "fuse_loops").empty());
  std::string last_value = source;
  const std::string add = "        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)\n";
  last_value.replace(last_value.find(add), add.size(), "        u = nl.exp(t)\n");
  last_value.replace(last_value.find("nl.add(t, acc)"), 14, "nl.add(t, u)");
  EXPECT_TRUE(builtin_test::sites_of(last_value, "fuse_loops").empty()) << last_value;
  std::string own_temporaries = last_value;
  own_temporaries.replace(own_temporaries.find("nl.add(t, u)"), 12, "nl.add(t, acc)");
  EXPECT_EQ(builtin_test::sites_of(own_temporaries, "fuse_loops").size(), 1u) << own_temporaries;
}
