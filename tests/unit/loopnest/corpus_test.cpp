// Lifting is total on the repository's kernels, an unchanged form prints back to the same text,
// and a kernel printed back from its form (every operation regenerated) lifts to the same form,
// computes the same numbers and has the same simulated profile.
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

#include "../nkilib/kernel_harness.h"
#include "eval/profile_run.h"
#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::corpus;
using loopnest_test::CorpusKernel;

// Kernels the form cannot express yet, with the construct that stops it (all in the corpus of
// other authors' styles, tests/kernels/corpus/).
const std::map<std::string, std::string> kKnownGaps = {
    // compiler directives: an explicit SBUF allocation (ncc.sbuf.mod_alloc)
    {"tests/kernels/corpus/con_compiler_directives.py", "cannot lift the attribute 'ncc.sbuf'"},
    // Python language features: a list comprehension building host objects
    {"tests/kernels/corpus/con_python_features.py", "cannot lift the expression '[TileSpec(i)"},
    {"tests/kernels/corpus/con_walrus.py", "cannot lift the expression '[last for d in x.shape"},
    // quasi-affine index grids: a grid divided or taken modulo a constant
    {"tests/kernels/corpus/con_quasi_affine.py", "cannot lift the index-grid operation 'i_f // 128'"},
    {"tests/kernels/corpus/cs149_conv2d.py", "cannot lift the index-grid operation 'i_f // taps'"},
    // a program id used as a float scalar operand (a loop-dependent number)
    {"tests/kernels/corpus/con_spmd_grid.py", "cannot lift the call of 'float'"},
    // access patterns of the newer API (tensor.ap)
    {"tests/kernels/corpus/new_causal_softmax_ap.py", "cannot lift the method call 'x.ap("},
    // a list of lists of tiles (a row of tiles appended to a list)
    {"tests/kernels/corpus/new_matmul_fully_optimized.py", "cannot lift an append of something other than a whole tile"},
    // closures: functions defined inside the kernel
    {"tests/kernels/corpus/tut_attention_closures.py", "cannot lift a function defined inside the kernel"},
    // a tile shape passed in as a tuple argument and unpacked in the kernel
    {"tests/kernels/corpus/usr_jit_mode_tuple_args.py", "cannot lift the unpacking 'rows, cols'"},
    // nisa.bn_stats / bn_aggr (statistics instructions the form has no op class for)
    {"tests/kernels/corpus/tut_layernorm_v2.py", "cannot lift the call of 'nisa.bn_stats'"},
    // row-wise and cross-partition instructions the form has no op class for (lang)
    {"tests/kernels/corpus/new_topk_max8.py", "cannot lift the call of 'isa.max8'"},
    {"tests/kernels/corpus/sample_segment_bounds.py", "cannot lift the call of 'nisa.sequence_bounds'"},
    {"tests/kernels/corpus/usr_local_gather_lookup.py", "cannot lift the call of 'nisa.local_gather'"},
    // an enum attribute chosen per iteration (reduce_cmd of tensor_scalar_cumulative)
    {"tests/kernels/corpus/new_cumsum_carry.py", "cannot lift the attribute 'nisa.reduce_cmd.reset_reduce'"},
    // nisa.iota of an index expression (its shape comes from the expression)
    {"tests/kernels/corpus/sample_causal_range_select.py", "cannot lift 'nisa.iota(nl.arange(P)[:, None] + r * P + 1"},
    // helper classes of the module (a dataclass config, a class with a property setter)
    {"tests/kernels/corpus/usr_dataclass_enum_config.py", "cannot lift the name 'Tiling'"},
    {"tests/kernels/corpus/usr_l2norm_sets.py", "cannot lift the name 'Width'"},
};

const std::vector<CorpusKernel>& all() {
  static const std::vector<CorpusKernel> kernels = corpus();
  return kernels;
}

TEST(LoopNestCorpus, EveryKernelOfTheRepositoryLifts) {
  ASSERT_GE(all().size(), 70u);
  int lifted = 0;
  for (const auto& k : all()) {
    try {
      loopnest::lift_source(k.path, k.text, k.args);
      ++lifted;
      EXPECT_FALSE(kKnownGaps.count(k.path)) << k.path << " lifts now: remove it from kKnownGaps";
    } catch (const loopnest::LiftError& e) {
      auto gap = kKnownGaps.find(k.path);
      if (gap == kKnownGaps.end()) ADD_FAILURE() << e.render();
      else EXPECT_NE(e.render().find(gap->second), std::string::npos) << e.render();
      // The diagnostic points at the construct: path:line:col.
      EXPECT_NE(e.render().find(k.path + ":"), std::string::npos);
    }
  }
  EXPECT_EQ(lifted + static_cast<int>(kKnownGaps.size()), static_cast<int>(all().size()));
}

TEST(LoopNestCorpus, AnUnchangedFormPrintsBackTheSameText) {
  for (const auto& k : all()) {
    if (kKnownGaps.count(k.path)) continue;
    auto form = loopnest::lift_source(k.path, k.text, k.args);
    EXPECT_EQ(loopnest::emit(form), k.text) << k.path;
  }
}

TEST(LoopNestCorpus, EveryOperationRegeneratedLiftsToTheSameForm) {
  for (const auto& k : all()) {
    if (kKnownGaps.count(k.path)) continue;
    auto form = loopnest::lift_source(k.path, k.text, k.args);
    try {
      loopnest::emit_checked(form, k.args, {.regenerate = true});
    } catch (const loopnest::EmitError& e) {
      ADD_FAILURE() << k.path << ": " << e.what();
    }
  }
}

std::vector<tensor::Array> inputs_for(const std::vector<loopnest::ArgSpec>& args) {
  std::vector<tensor::Array> out;
  for (size_t i = 0; i < args.size(); ++i)
    out.push_back(nki::lib::testing::test_input(tensor::Shape(args[i].shape.begin(), args[i].shape.end()),
                                                static_cast<int>(i) + 1));
  return out;
}

TEST(LoopNestCorpus, RegeneratedTestKernelsComputeTheSameNumbers) {
  int compared = 0;
  for (const auto& k : all()) {
    if (!k.test_kernel || kKnownGaps.count(k.path) || k.args.empty()) continue;
    auto form = loopnest::lift_source(k.path, k.text, k.args);
    std::string again = loopnest::emit(form, {.regenerate = true});
    nki::lib::testing::Harness h1, h2;
    auto a = h1.run_module(*h1.load_text(k.path, k.text), inputs_for(k.args));
    auto b = h2.run_module(*h2.load_text(k.path, again), inputs_for(k.args));
    ASSERT_EQ(a.outputs.size(), b.outputs.size()) << k.path;
    for (size_t o = 0; o < a.outputs.size(); ++o) {
      ASSERT_EQ(a.outputs[o].shape(), b.outputs[o].shape()) << k.path;
      int64_t n = tensor::num_elements(a.outputs[o].shape());
      std::vector<int64_t> idx(a.outputs[o].shape().size(), 0);
      for (int64_t e = 0; e < n; ++e) {
        double x = a.outputs[o].get(idx), y = b.outputs[o].get(idx);
        if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
          ADD_FAILURE() << k.path << ": output " << o << " differs at element " << e << ": " << x << " vs " << y;
          break;
        }
        for (int d = static_cast<int>(idx.size()) - 1; d >= 0 && ++idx[d] == a.outputs[o].shape()[d]; --d) idx[d] = 0;
      }
    }
    ++compared;
  }
  EXPECT_GE(compared, 20);
}

double profile_ms(const CorpusKernel& k, const std::string& text, int64_t* instructions) {
  eval::TraceRequest req;
  req.kernel_path = k.path;
  req.kernel_text = text;
  req.args = eval::reference_kernel_args(k.reference, loopnest_test::read(k.reference), eval::default_limits());
  auto run = eval::profile_kernel(req, "trn1");
  if (!run.profile) return -1;
  *instructions = static_cast<int64_t>(run.profile->instructions);
  return run.profile->latency;
}

// The task kernels in every style (full size, trace only): the regenerated kernel's trace gives the
// same simulated latency and instruction count.
TEST(LoopNestCorpus, RegeneratedTaskKernelsHaveTheSameProfile) {
  int compared = 0;
  for (const auto& k : all()) {
    if (k.reference.empty() || kKnownGaps.count(k.path)) continue;
    bool task_kernel = k.path.rfind("nkibench/", 0) == 0 || k.path.rfind("bench/fidelity_kernels/", 0) == 0;
    if (!task_kernel) continue;
    auto form = loopnest::lift_source(k.path, k.text, k.args);
    std::string again = loopnest::emit(form, {.regenerate = true});
    int64_t n1 = 0, n2 = 0;
    double a = profile_ms(k, k.text, &n1), b = profile_ms(k, again, &n2);
    ASSERT_GT(a, 0) << k.path;
    EXPECT_EQ(a, b) << k.path;
    EXPECT_EQ(n1, n2) << k.path;
    ++compared;
  }
  EXPECT_GE(compared, 44);
}

}  // namespace

namespace {

// A wrapper `kernel` returning an SPMD launch of the decorated kernel: the form holds the launched
// kernel's work inside parallel loops over the program ids (the launch grid [2, 2]).
TEST(LoopNestCorpus, AnSpmdLaunchLiftsAsLoopsOverTheProgramIds) {
  for (const auto& k : all()) {
    if (k.path != "tests/kernels/corpus/tut_tensor_add_spmd.py") continue;
    std::string dump = loopnest::dump(loopnest::lift_source(k.path, k.text, k.args));
    EXPECT_NE(dump.find("for program_id_0 in affine_range(2):"), std::string::npos) << dump;
    EXPECT_NE(dump.find("for program_id_1 in affine_range(2):"), std::string::npos) << dump;
    EXPECT_NE(dump.find("nl.add(x=a_tile, y=b_tile)"), std::string::npos) << dump;
    EXPECT_NE(dump.find("a_input[128*program_id_0 + a0[128], 512*program_id_1 + a1[512]]"), std::string::npos) << dump;
    return;
  }
  FAIL() << "tut_tensor_add_spmd.py is not in the corpus";
}

}  // namespace
