// privatize_buffer on scratch tiles accessed with a ragged extent (tests/kernels/corpus/
// p46_ragged_scratch.py: `tw[0:nr, :]`, nr = min(P, M - r0) over the row blocks): the extent names
// the row loop but is no slot index, so the row loop gets its site too (before session 46 only the
// outer column loop did, which left the row loop in order: an outside author's AdamW stayed at 4.78
// ms; privatized and affine, 1.678 ms, its DMA floor).
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "eval/profile_run.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

const std::string kKernel = source_dir() + "/tests/kernels/corpus/p46_ragged_scratch.py";
const std::string kReference = source_dir() + "/tests/kernels/corpus/p46_ragged_scratch.ref.py";

std::vector<loopnest::ArgSpec> args() { return eval::reference_arg_specs(kReference, read(kReference)); }

double simulated_us(const std::string& text) {
  eval::TraceRequest req = eval::trace_request_from_files(kReference, kKernel);
  req.kernel_text = text;
  eval::ProfileRun run = eval::profile_kernel(req, "trn1", {.price_sbuf_space = false});
  EXPECT_TRUE(run.profile.has_value()) << text;
  return run.profile ? run.profile->latency * 1e3 : 0;
}

TEST(RaggedScratch, TheRowLoopPrivatizesItsScratchAndRunsAffine) {
  const std::string text = read(kKernel);
  std::optional<loopnest::Site> rows;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(kKernel, text, args())))
    if (s.transform == "privatize_buffer" && s.params.count("then") && s.summary.find("inside `for jb`") != std::string::npos)
      rows = s;
  ASSERT_TRUE(rows.has_value());
  const std::string after = loopnest::apply_site(kKernel, text, args(), *rows);
  EXPECT_NE(after.find("for jb in nl.affine_range(1, nrblk + 1):"), std::string::npos) << after;
  // The ragged accesses print as written.
  EXPECT_NE(after.find("tw[0:nr, :] = nl.load("), std::string::npos) << after;
  EXPECT_LT(simulated_us(after), 0.8 * simulated_us(text));
}

TEST(RaggedScratch, EverySiteKeepsTheResult) {
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(kKernel, read(kKernel), args()), 0u);
}

}  // namespace
