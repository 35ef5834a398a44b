// affine_loop (src/loopnest/affine_loop.cpp): a loop the compiler runs in order (Python `range` in
// a legacy kernel, `nl.sequential_range`) whose iterations are independent becomes
// `nl.affine_range`; only its header changes. Legality comes from the form's dependences
// (iterations_commute, analysis.h): a name carried from one iteration to the next, a tile read one
// iteration after it was written, a buffer reused by every iteration, an engine accumulator
// continued across iterations and the random numbers' generator state are refused. That every
// site keeps the kernel's outputs is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's;
// the printed kernels are GoldenRewrites'.
#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "corpus.h"
#include "text_edit.h"
#include "eval/profile_run.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::replace;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kExpmulArgs = arrays({{1024, 512}, {1024, 512}});

std::string spelling(const std::string& name) { return read(source_dir() + "/tests/kernels/spellings/" + name); }

std::vector<loopnest::Site> affine_sites(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "affine_loop") out.push_back(s);
  return out;
}

// The lines of `a` that differ from `b`'s (same line count expected).
std::vector<std::pair<std::string, std::string>> changed_lines(const std::string& a, const std::string& b) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream x(a), y(b);
  std::string la, lb;
  while (true) {
    bool ga = static_cast<bool>(std::getline(x, la)), gb = static_cast<bool>(std::getline(y, lb));
    if (!ga && !gb) break;
    if (!ga || !gb || la != lb) out.push_back({ga ? la : "<end>", gb ? lb : "<end>"});
  }
  return out;
}

double simulated_us(const std::string& text, const std::string& arch) {
  eval::TraceRequest req = eval::trace_request_from_files(source_dir() + "/tests/kernels/spellings/expmul.ref.py",
                                                          source_dir() + "/tests/kernels/spellings/expmul_nisa.py");
  req.kernel_text = text;
  eval::ProfileRun run = eval::profile_kernel(req, arch);
  EXPECT_TRUE(run.profile.has_value()) << text;
  return run.profile ? run.profile->latency * 1e3 : 0;
}

// The row loop of exp(x) * y written `range` (legacy: run in order) and `nl.sequential_range`:
// each offers the move, whose result changes the header alone and simulates like the kernel
// written `nl.affine_range` (expmul_nisa.py, the same program), on both generations.
TEST(AffineLoop, ARangeOrSequentialLoopOfIndependentRowsBecomesAffineAndSimulatesLikeIt) {
  const std::string affine = spelling("expmul_nisa.py");
  for (const char* name : {"expmul_range.py", "expmul_sequential_range.py"}) {
    SCOPED_TRACE(name);
    std::string text = spelling(name);
    auto sites = affine_sites(text, kExpmulArgs);
    ASSERT_EQ(sites.size(), 1u);
    std::string after = loopnest::apply_site("k.py", text, kExpmulArgs, sites[0]);
    auto changed = changed_lines(text, after);
    ASSERT_EQ(changed.size(), 1u) << after;
    EXPECT_EQ(changed[0].second, "  for r in nl.affine_range(R // 128):");
    EXPECT_TRUE(affine_sites(after, kExpmulArgs).empty()) << after;
    for (const char* arch : {"trn1", "trn2"}) {
      double before_us = simulated_us(text, arch), after_us = simulated_us(after, arch), want = simulated_us(affine, arch);
      EXPECT_NEAR(after_us, want, 1e-6 * want) << arch;
      // In order, the rows' loads wait for the previous row's store: the move is worth making.
      EXPECT_GT(before_us, 1.2 * after_us) << arch;
    }
  }
  EXPECT_TRUE(affine_sites(affine, kExpmulArgs).empty());
}

// Two loops in order, each a site, and one site for both (`all=2`): the headers written
// affine_range together, as the single sites one after the other leave them; it simulates at least
// as fast as either single site.
TEST(AffineLoop, EveryLoopRunInOrderIsOneSiteBesideTheSingleLoops) {
  std::string text = spelling("expmul_range_chunks.py");
  auto sites = affine_sites(text, kExpmulArgs);
  ASSERT_EQ(sites.size(), 3u);
  auto every = std::find_if(sites.begin(), sites.end(), [](const loopnest::Site& s) { return s.params.count("all"); });
  ASSERT_NE(every, sites.end());
  EXPECT_EQ(every->params.at("all"), "2");
  std::string all = loopnest::apply_site("k.py", text, kExpmulArgs, *every);
  auto changed = changed_lines(text, all);
  ASSERT_EQ(changed.size(), 2u) << all;
  EXPECT_EQ(changed[0].second, "  for r in nl.affine_range(R // 128):");
  EXPECT_EQ(changed[1].second, "    for c in nl.affine_range(C // W):");
  EXPECT_EQ(all, loopnest::apply_every_site("affine_loop", "k.py", text, kExpmulArgs));
  EXPECT_TRUE(affine_sites(all, kExpmulArgs).empty()) << all;
  double all_us = simulated_us(all, "trn1");
  for (const auto& s : sites) {
    if (s.params.count("all")) continue;
    EXPECT_LE(all_us, simulated_us(loopnest::apply_site("k.py", text, kExpmulArgs, s), "trn1")) << s.key();
  }
  // One loop in order: no `all` site.
  EXPECT_EQ(affine_sites(spelling("expmul_range.py"), kExpmulArgs).size(), 1u);
}

// In the newer `nki` API a `range` loop is affine already (an alias): no site.
TEST(AffineLoop, ARangeLoopOfTheNewerApiIsAffineAlready) {
  EXPECT_TRUE(affine_sites(spelling("matmul_dst_accumulate_range.py"), arrays({{256, 256}, {256, 512}})).empty());
  std::string newer = spelling("expmul_newer_api.py");
  replace(newer, "nl.affine_range(", "range(");
  EXPECT_TRUE(affine_sites(newer, kExpmulArgs).empty()) << newer;
  // The same loop written nl.sequential_range in that API runs in order: offered.
  replace(newer, "in range(", "in nl.sequential_range(");
  EXPECT_EQ(affine_sites(newer, kExpmulArgs).size(), 1u) << newer;
}

// The row loop of expmul_range.py with its body changed so that iterations depend on each other.
std::string rows_with(const std::string& before_loop, const std::string& body) {
  std::string text = spelling("expmul_range.py");
  replace(text, "  for r in range(R // 128):\n", before_loop + "  for r in range(R // 128):\n");
  replace(text,
          "    e = nisa.activation(op=nl.exp, data=xt)\n"
          "    z = nisa.tensor_tensor(e, yt, op=nl.multiply)\n"
          "    nl.store(out[r * 128:(r + 1) * 128, :], value=z)\n",
          body);
  return text;
}

TEST(AffineLoop, LoopsWhoseIterationsDependOnEachOtherAreRefused) {
  // Control: each row's own tiles, its own row of a block buffer declared before the loop.
  std::string own_rows = rows_with("  buf = nl.ndarray((R // 128 + 1, nl.par_dim(128), C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                   "    buf[r + 1] = nisa.tensor_tensor(xt, yt, op=nl.multiply)\n"
                                   "    nl.store(out[r * 128:(r + 1) * 128, :], value=buf[r + 1])\n");
  EXPECT_EQ(affine_sites(own_rows, kExpmulArgs).size(), 1u) << own_rows;
  // A row reads the block the row before wrote (a recurrence through a block buffer).
  std::string recurrence = rows_with("  buf = nl.ndarray((R // 128 + 1, nl.par_dim(128), C), dtype=nl.float32, buffer=nl.sbuf)\n"
                                     "  buf[0] = nl.load(y[0:128, :])\n",
                                     "    buf[r + 1] = nisa.tensor_tensor(buf[r], xt, op=nl.multiply)\n"
                                     "    nl.store(out[r * 128:(r + 1) * 128, :], value=buf[r + 1])\n");
  EXPECT_TRUE(affine_sites(recurrence, kExpmulArgs).empty()) << recurrence;
  // One scratch tile declared before the loop, overwritten by every row.
  std::string reused = rows_with("  s = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                 "    s[...] = nisa.tensor_tensor(xt, yt, op=nl.multiply)\n"
                                 "    nl.store(out[r * 128:(r + 1) * 128, :], value=s)\n");
  EXPECT_TRUE(affine_sites(reused, kExpmulArgs).empty()) << reused;
  // A running sum carried through the name (lift_carry.cpp): `acc = nl.add(acc, t)`.
  std::string carried = rows_with("  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                  "    acc = nl.add(acc, nisa.tensor_tensor(xt, yt, op=nl.multiply))\n"
                                  "    nl.store(out[r * 128:(r + 1) * 128, :], value=acc)\n");
  EXPECT_TRUE(affine_sites(carried, kExpmulArgs).empty()) << carried;
  // ... and the same sum read back through a dict the row builds (a read inside a dict display is
  // a read: the carry is there, however the author packs it).
  std::string through_dict = rows_with("  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                       "    state = {\"sum\": acc}\n"
                                       "    acc = nl.add(state[\"sum\"], nisa.tensor_tensor(xt, yt, op=nl.multiply))\n"
                                       "    nl.store(out[r * 128:(r + 1) * 128, :], value=acc)\n");
  EXPECT_TRUE(affine_sites(through_dict, kExpmulArgs).empty()) << through_dict;
  // An accumulation `+=` into a tile declared before the loop, read after it: the iterations only
  // change the order of the sum (LANG: affine_range allows it).
  std::string summed = rows_with("  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                 "    acc += nisa.tensor_tensor(xt, yt, op=nl.multiply)\n");
  replace(summed, "  return out\n", "  nl.store(out[0:128, :], value=acc)\n  return out\n");
  EXPECT_EQ(affine_sites(summed, kExpmulArgs).size(), 1u) << summed;
  // ... but not when a row reads the sum so far.
  std::string read_back = rows_with("  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)\n",
                                    "    acc += nisa.tensor_tensor(xt, yt, op=nl.multiply)\n"
                                    "    nl.store(out[r * 128:(r + 1) * 128, :], value=acc)\n");
  EXPECT_TRUE(affine_sites(read_back, kExpmulArgs).empty()) << read_back;
}

// Carries of other authors' kernels: a cumulative max and an online logsumexp carried through
// names in a sequential_range, and a running sum the Vector Engine's accumulator carries across
// chunks (reduce_cmd=reduce after reset_reduce: engine state, no tile shows it).
TEST(AffineLoop, CorpusLoopsCarryingAValueAreRefused) {
  for (const char* name : {"p10_cummax_scan_carry", "p10_online_logsumexp_sequential", "new_cumsum_carry"}) {
    SCOPED_TRACE(name);
    std::string dir = source_dir() + "/tests/kernels/corpus/";
    auto args = eval::reference_arg_specs(dir + name + ".ref.py", read(dir + name + ".ref.py"));
    std::string text = read(dir + name + ".py");
    loopnest::Kernel k = loopnest::lift_source(name, text, args);
    bool sequential = false;
    for (const auto& [id, l] : k.loops) sequential = sequential || l.kind == loopnest::LoopKind::Sequential;
    EXPECT_TRUE(sequential);
    EXPECT_TRUE(affine_sites(text, args).empty());
  }
}

// A loop drawing random numbers is sequential in the form because the generator's state needs its
// order (Loop::ordered), written affine_range or not: no site.
TEST(AffineLoop, LoopsTheGeneratorNeedsInOrderAreRefused) {
  std::string text = spelling("expmul_sequential_range.py");
  replace(text, "    e = nisa.activation(op=nl.exp, data=xt)\n", "    e = nisa.activation(op=nl.exp, data=nl.rand((128, C)))\n");
  EXPECT_TRUE(affine_sites(text, kExpmulArgs).empty()) << text;
  replace(text, "nl.sequential_range(", "nl.affine_range(");
  EXPECT_TRUE(affine_sites(text, kExpmulArgs).empty()) << text;
}

}  // namespace

namespace {

// An nl.static_range loop promises nothing about its iterations, so moves that reorder them asked
// for an affine loop and offered nothing on kernels whose authors unroll (a held-out attention
// kernel's P @ V loop: 17.65 -> 9.48 ms once the transposes are pipelined). Its iterations are now
// independent where the dependences show it (iterations_commute): here they only accumulate one
// matmul each, so pipeline_prep is offered; a static loop handing a value on is not (the carried
// cases are AffineLoop.*'s, whose legality is the same function).
TEST(AffineLoop, AStaticLoopWhoseIterationsOnlyAccumulateIsPipelined) {
  std::string path = source_dir() + "/tests/kernels/corpus/new_static_pv_loop.py";
  std::string text = read(path);
  auto args = arrays({{256, 512}, {512, 128}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  int inner = -1;
  for (const auto& [id, l] : form.loops)
    if (l.kind == loopnest::LoopKind::Static) inner = id;
  ASSERT_GE(inner, 0);
  EXPECT_TRUE(loopnest::independent_iterations(form, inner));
  bool pipelined = false;
  for (const auto& s : loopnest::find_sites(form)) pipelined = pipelined || s.transform == "pipeline_prep";
  EXPECT_TRUE(pipelined);
  // Written with a plain `range`, which the newer API unrolls like its affine_range (an alias, NKI
  // 0.7's spelling of every loop): the same.
  std::string ranged = text;
  ranged.replace(ranged.find("nl.static_range(keys // 128)"), std::string("nl.static_range(keys // 128)").size(),
                 "range(keys // 128)");
  loopnest::Kernel rf = loopnest::lift_source(path, ranged, args);
  bool ranged_pipelined = false;
  for (const auto& s : loopnest::find_sites(rf)) ranged_pipelined = ranged_pipelined || s.transform == "pipeline_prep";
  EXPECT_TRUE(ranged_pipelined);
  // The same loop reading back what its previous iteration wrote (a running value) is not.
  std::string carried = text;
  const std::string from = "nisa.dma_copy(dst=v_t, src=v[t * 128:(t + 1) * 128, :])";
  carried.replace(carried.find(from), from.size(),
                  "nisa.dma_copy(dst=v_t, src=v[t * 128:(t + 1) * 128, :])\n"
                  "            nisa.tensor_tensor(dst=probs[:, 0:128], data1=probs[:, 0:128], data2=p_t, op=nl.add)");
  loopnest::Kernel cf = loopnest::lift_source(path, carried, args);
  for (const auto& [id, l] : cf.loops)
    if (l.kind == loopnest::LoopKind::Static) EXPECT_FALSE(loopnest::independent_iterations(cf, id));
}

}  // namespace
