// Constructs of the session 13 corpus kernels (tests/kernels/corpus/p13_*, docs/language.md "Kernels
// by idiom, session 13"): one program in the high-level nki.language spelling, a decompiler's and
// the bundled kernels' ISA spelling offers the same sites (issue 13 item 3); a first version's
// matmul accumulating in SBUF is offered PSUM accumulation; nl.power sits on GpSimd.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::corpus;
using loopnest_test::CorpusKernel;

const CorpusKernel& corpus_kernel(const std::string& name) {
  static const std::vector<CorpusKernel> all = corpus();
  for (const auto& k : all)
    if (k.path == "tests/kernels/corpus/" + name + ".py") return k;
  throw std::runtime_error("no corpus kernel " + name);
}

std::set<std::string> site_keys(const std::string& path, const std::string& text,
                                const std::vector<loopnest::ArgSpec>& args) {
  std::set<std::string> keys;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args))) keys.insert(s.key());
  return keys;
}

std::set<std::string> site_keys(const CorpusKernel& k) { return site_keys(k.path, k.text, k.args); }

// p13_trio_{matmul,softmax}_{isa,api,gen}: the same nest written with nisa.* instructions, with
// nl.matmul(transpose_x=True) / nl.max / `t - m` / `e / s`, and as a decompiler prints it (v1..vN,
// markers, index grids). The softmax's division is nl.divide (the `/` operator) in every spelling:
// divide is no ISA operator (nki-language.md 9.1), so engine_assign offers no nisa form of it
// (until session 38 it printed nisa.tensor_scalar(op0=nl.divide), which does not compile).
TEST(LoopNestTransforms, OneProgramInTheLanguageDecompiledAndIsaSpellingsOffersTheSameSites) {
  for (const char* program : {"p13_trio_matmul", "p13_trio_softmax"}) {
    SCOPED_TRACE(program);
    std::set<std::string> isa = site_keys(corpus_kernel(std::string(program) + "_isa"));
    EXPECT_FALSE(isa.empty());
    EXPECT_EQ(site_keys(corpus_kernel(std::string(program) + "_api")), isa);
    EXPECT_EQ(site_keys(corpus_kernel(std::string(program) + "_gen")), isa);
  }
  std::set<std::string> softmax = site_keys(corpus_kernel("p13_trio_softmax_api"));
  EXPECT_FALSE(std::any_of(softmax.begin(), softmax.end(), [](const std::string& k) {
    return k.rfind("engine_assign", 0) == 0 && k.find("divide") != std::string::npos;
  }));
}

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\n"
                          "import neuronxcc.nki.language as nl\n\n\n";

std::string sbuf_matmul(const std::string& matmul) {
  return std::string(kHead) +
         "@nki.jit\n"
         "def kernel(aT, b):\n"
         "    out = nl.ndarray((128, 512), dtype=b.dtype, buffer=nl.shared_hbm)\n"
         "    acc = nl.zeros((128, 512), dtype=nl.float32)\n"
         "    for k in nl.affine_range(2):\n"
         "        a_t = nl.load(aT[k * 128:(k + 1) * 128, 0:128])\n"
         "        b_t = nl.load(b[k * 128:(k + 1) * 128, 0:512])\n"
         "        acc += " + matmul + "\n"
         "    nl.store(out[0:128, 0:512], value=acc)\n"
         "    return out\n";
}

// p13_first_matmul_sbuf_acc: `acc = nl.zeros(...)` in SBUF and `acc += nl.matmul(...)` per K step, a
// first version's matmul: the compiler copies each PSUM result out and adds it on the Vector Engine.
// psum_accumulate took only Vector / Scalar Engine results, so no move put the accumulator in PSUM.
// It does now, in both spellings, and the declaration is all that changes.
TEST(LoopNestTransforms, AMatmulAccumulatedInSbufIsOfferedPsumAccumulation) {
  auto args = arrays({{256, 128}, {256, 512}});
  for (const char* matmul : {"nl.matmul(a_t, b_t, transpose_x=True)", "nisa.nc_matmul(a_t, b_t)"}) {
    SCOPED_TRACE(matmul);
    std::string text = sbuf_matmul(matmul);
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, args));
    auto it = std::find_if(sites.begin(), sites.end(), [](const auto& s) { return s.transform == "psum_accumulate"; });
    ASSERT_NE(it, sites.end());
    EXPECT_NE(it->summary.find("the Tensor Engine accumulates"), std::string::npos) << it->summary;
    EXPECT_TRUE(it->relieves.count("dve")) << it->key();  // the copy and add per step
    std::string after = loopnest::apply_site("k.py", text, args, *it);
    EXPECT_NE(after.find("acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)"), std::string::npos) << after;
    EXPECT_NE(after.find(std::string("acc += ") + matmul), std::string::npos) << after;
  }
  // An SBUF accumulator that a matmul reads stays: the Tensor Engine does not read PSUM operands here.
  std::string read_by_pe = std::string(kHead) +
                           "@nki.jit\n"
                           "def kernel(aT, b):\n"
                           "    out = nl.ndarray((128, 512), dtype=b.dtype, buffer=nl.shared_hbm)\n"
                           "    acc = nl.zeros((128, 128), dtype=nl.float32)\n"
                           "    for k in nl.affine_range(2):\n"
                           "        a_t = nl.load(aT[k * 128:(k + 1) * 128, 0:128])\n"
                           "        acc += nisa.nc_matmul(a_t, a_t)\n"
                           "    b_t = nl.load(b[0:128, 0:512])\n"
                           "    nl.store(out[0:128, 0:512], value=nl.copy(nisa.nc_matmul(acc, b_t)))\n"
                           "    return out\n";
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", read_by_pe, args)))
    EXPECT_NE(s.transform, "psum_accumulate") << s.key();
}

// `x ** 2` is nl.power, which the interpreter runs on GpSimd (nki-language.md 9.1: power on GpSimd
// only). The form said Vector Engine, so engine_assign would have offered "gpsimd from vector";
// now the form says GpSimd and no engine is offered for it, in either spelling.
TEST(LoopNestLift, PowerSitsOnGpSimdAndStaysThere) {
  auto args = arrays({{128, 64}});
  auto text = [](const std::string& expr) {
    return std::string(kHead) +
           "@nki.jit\n"
           "def kernel(x):\n"
           "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
           "    for i in nl.affine_range(1):\n"
           "        t = nl.load(x[0:128, 0:64])\n"
           "        y = " + expr + "\n"
           "        nl.store(out[0:128, 0:64], value=y)\n"
           "    return out\n";
  };
  auto form = loopnest::lift_source("k.py", text("t ** 2"), args);
  EXPECT_NE(loopnest::dump(form).find("nl.power(x=t, y=2) @pool"), std::string::npos) << loopnest::dump(form);
  for (const auto& s : loopnest::find_sites(form)) EXPECT_NE(s.transform, "engine_assign") << s.key();
  // The ISA spelling too: power runs on GpSimd only (nki-language.md 9.1), where the interpreter
  // puts a tensor_scalar that does not say its engine (trn/alu_engines.h), so it has no move.
  auto isa = loopnest::lift_source("k.py", text("nisa.tensor_scalar(data=t, op0=nl.power, operand0=2)"), args);
  EXPECT_NE(loopnest::dump(isa).find("@pool"), std::string::npos) << loopnest::dump(isa);
  for (const auto& s : loopnest::find_sites(isa)) EXPECT_NE(s.transform, "engine_assign") << s.key();
}

std::string last_tile_branch(const std::string& condition, const std::string& then_body,
                             const std::string& else_body, const std::string& use) {
  return std::string(kHead) +
         "@nki.jit\n"
         "def kernel(x):\n"
         "    n, d = x.shape\n"
         "    ntiles = (n + 127) // 128\n"
         "    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for t in range(ntiles):\n"
         "        xt = nl.load(x[nl.ds(t * 128, 128 if t < ntiles - 1 else n - t * 128), :])\n"
         "        if " + condition + ":\n"
         "            " + then_body + "\n"
         "        else:\n"
         "            " + else_body + "\n"
         "        " + use + "\n"
         "    return out\n";
}

// p13_first_last_tile_branch: `if t == ntiles - 1 and n % 128 != 0: rows = n % 128 else: rows =
// 128`, then `nl.ds(t * 128, rows)`. The `and` of a loop comparison with a host bool was refused
// ("cannot lift 't == ntiles - 1' as a condition of and/or"), and `rows` kept the else branch's
// 128, out of bounds on the last tile. Now the condition is the comparison and `rows` the choice.
TEST(LoopNestLift, AnIfOnTheLastTileChoosesTheIntegersItsBranchesBind) {
  auto args = arrays({{300, 64}});
  std::string text = last_tile_branch("t == ntiles - 1 and n % 128 != 0", "rows = n % 128", "rows = 128",
                                      "nl.store(out[nl.ds(t * 128, rows), :], value=nl.exp(xt[0:rows, :]))");
  std::string d = loopnest::dump(loopnest::lift_source("k.py", text, args));
  EXPECT_NE(d.find("a0[(44 if t - 2 == 0 else 128)]"), std::string::npos) << d;
  EXPECT_NE(d.find("if t == 2:"), std::string::npos) << d;
  // `c and False` is False whatever c is; `c or True` is True.
  for (const char* decided : {"t == ntiles - 1 and n % 128 == 0", "t == ntiles - 1 or n > 0"}) {
    std::string d2 = loopnest::dump(loopnest::lift_source(
        "k.py", last_tile_branch(decided, "rows = 44", "rows = 128", "nl.store(out[t * 128:t * 128 + 44, :], value=xt[0:44, :])"),
        args));
    EXPECT_EQ(d2.find("if t == 2:"), std::string::npos) << decided << "\n" << d2;
  }
  // Two comparisons of loop variables are one condition since session 29 (`Lifter::cond_join`,
  // LoopNestAuthors29.*): true on t == 1 only, where `rows` is the then branch's 44.
  std::string d3 = loopnest::dump(loopnest::lift_source(
      "k.py", last_tile_branch("t > 0 and t < 2", "rows = 44", "rows = 128",
                               "nl.store(out[t * 128:t * 128 + 44, :], value=xt[0:rows, :])"),
      args));
  EXPECT_NE(d3.find("if ((1 if t - 2 < 0 else 0) if t > 0 else 0) == 1:"), std::string::npos) << d3;
}

int frozen_nodes(const loopnest::Kernel& k) {
  int frozen = 0;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) { frozen += n.frozen ? 1 : 0; });
  return frozen;
}

// A tile name bound by both branches of an `if` on loop variables stood for the else branch's
// tile: the then branch's result was dead in the form, and in_place wrote the else branch's tanh
// over `xt`, which the store then read on every tile, the exp's included (a wrong kernel from an
// offered site). The name still lifts as the else branch's tile, but the `if` and every statement
// reading the name are frozen: no move rewrites what the form cannot say.
TEST(LoopNestLift, ATileBoundDifferentlyByTheBranchesOfALoopConditionFreezesItsReaders) {
  auto args = arrays({{384, 64}});
  std::string text = last_tile_branch("t == 2", "y = nl.exp(xt)", "y = nl.tanh(xt)",
                                      "nl.store(out[t * 128:(t + 1) * 128, :], value=y)");
  auto form = loopnest::lift_source("k.py", text, args);
  EXPECT_EQ(frozen_nodes(form), 4);  // the if, its two statements, the store
  for (const auto& s : loopnest::find_sites(form)) EXPECT_NE(s.transform, "in_place") << s.key();
  // Each branch storing its own tile: nothing is chosen per iteration, nothing frozen.
  std::string own = last_tile_branch("t == 2", "nl.store(out[t * 128:(t + 1) * 128, :], value=nl.exp(xt))",
                                     "nl.store(out[t * 128:(t + 1) * 128, :], value=nl.tanh(xt))", "pass");
  EXPECT_EQ(frozen_nodes(loopnest::lift_source("k.py", own, args)), 0);
}

}  // namespace
