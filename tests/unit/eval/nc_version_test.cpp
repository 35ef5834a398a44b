// nisa.get_nc_version() answers with the generation of the NeuronCore the evaluation simulates
// (nki-language.md 8.5: nisa.nc_version gen2 = NeuronCore-v2 (trn1), gen3 = v3 (trn2)), in the
// checked run and in the trace-only profile alike: a kernel choosing its code by target runs the
// code that target would. tests/kernels/corpus/con_nc_version_branch.py scales its output by the
// generation; its reference expects gen2's factor.
#include <gtest/gtest.h>

#include "eval/evaluate.h"
#include "eval_test_util.h"
#include "support/test_paths.h"

namespace {

const std::string kDir = std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/corpus/";

eval::EvalRequest request(const std::string& arch) {
  eval::EvalRequest req;
  req.kernel_path = kDir + "con_nc_version_branch.py";
  req.reference_path = kDir + "con_nc_version_branch.ref.py";
  req.seeds = {0};
  req.tolerance = 1e-4;
  req.profile = false;
  req.arch = arch;
  return req;
}

TEST(NcVersion, Trn1IsGen2) {
  eval::Evaluation r = eval::evaluate(request("trn1"));
  EXPECT_EQ(r.status, eval::Status::Ok) << eval_test::joined(r.diagnostics);
}

TEST(NcVersion, Trn2IsGen3) {
  // gen3 takes the other branch and scales by 3: the gen2 reference no longer matches.
  eval::Evaluation r = eval::evaluate(request("trn2"));
  EXPECT_EQ(r.status, eval::Status::Incorrect) << eval_test::joined(r.diagnostics);
}

}  // namespace
