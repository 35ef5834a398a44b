// engine_assign of a newer-API nisa.tensor_copy on NeuronCore-v2 (src/loopnest/engine.cpp,
// copy_as_activation): NKI 0.6 has no tensor_copy on that core's Scalar Engine ("use
// activation(op=nl.copy)", nki-language.md 12.2), so the simulator keeps it on VectorE, where a
// kernel's PSUM evacuations add to the Vector Engine's own work. The move writes the copy as
// `nisa.activation(dst=, op=nl.copy, data=)`, which runs on ScalarE. Our kernel
// (tests/kernels/psum_copy_vector_api.py): a matmul per row tile whose product is copied out of
// PSUM, then squared and added on VectorE.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "eval/profile_run.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "nki/lib/array_value.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

// x (128, 2048): 16 row tiles; w (128, 512).
const std::vector<loopnest::ArgSpec> kArgs = arrays({{128, 2048}, {128, 512}});

std::string kernel_path() { return source_dir() + "/tests/kernels/psum_copy_vector_api.py"; }

// The engine_assign sites moving a tensor_copy (nc_version 2: trn1, 3: trn2).
std::vector<loopnest::Site> copy_sites(const std::string& text, int nc_version = 2) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(kernel_path(), text, kArgs, "", nc_version)))
    if (s.transform == "engine_assign" && s.anchor.find("/copy#") != std::string::npos)
      out.push_back(s);
  return out;
}

struct Busy {
  double latency_ms = 0, dve_ms = 0, act_ms = 0;
};

Busy simulated(const std::string& text) {
  eval::TraceRequest req;
  req.kernel_path = kernel_path();
  req.kernel_text = text;
  for (const auto& a : kArgs)
    req.args.push_back(nki::lib::make_array(
        tensor::Array::shape_only(tensor::Shape(a.shape.begin(), a.shape.end()), tensor::DType::Float32)));
  eval::ProfileRun r = eval::profile_kernel(req, "trn1");
  EXPECT_TRUE(r.profile.has_value()) << text;
  if (!r.profile) return {};
  auto busy = [&](const char* e) { return r.profile->engine_busy_ms.count(e) ? r.profile->engine_busy_ms.at(e) : 0.0; };
  return {r.profile->latency, busy("dve"), busy("act")};
}

TEST(CopyAsActivation, ANewerApiCopyOnNeuronCoreV2MovesToTheScalarEngineAndKeepsTheResult) {
  const std::string text = read(kernel_path());
  auto sites = copy_sites(text);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("engine"), "scalar");
  EXPECT_EQ(sites[0].params.at("from"), "vector");
  std::string after = loopnest::apply_site(kernel_path(), text, kArgs, sites[0]);
  // Printed destination-first, as the kernel writes its calls; nothing else changes.
  EXPECT_NE(after.find("        nisa.activation(dst=y, op=nl.copy, data=acc)\n"), std::string::npos) << after;
  EXPECT_EQ(after.find("nisa.tensor_copy("), std::string::npos) << after;
  EXPECT_EQ(loopnest_test::replace_all(after, "nisa.activation(dst=y, op=nl.copy, data=acc)",
                                       "nisa.tensor_copy(dst=y, src=acc)"),
            text);
  EXPECT_LT(rel_error(run(kernel_path(), after, kArgs), run(kernel_path(), text, kArgs)), 1e-6) << after;
  EXPECT_TRUE(copy_sites(after).empty()) << after;
  // On trn1 the VectorE-bound kernel gets faster: the copies leave VectorE for the idle ScalarE.
  Busy before = simulated(text), moved = simulated(after);
  EXPECT_EQ(before.act_ms, 0) << "the newer API's tensor_copy ran on ScalarE";
  EXPECT_GT(before.dve_ms, before.act_ms);
  EXPECT_LT(moved.dve_ms, before.dve_ms);
  EXPECT_GT(moved.act_ms, 0);
  EXPECT_LT(moved.latency_ms, before.latency_ms) << before.latency_ms << " ms -> " << moved.latency_ms << " ms";
}

// On NeuronCore-v3 (trn2) the newer API's tensor_copy may run on ScalarE, where the compiler
// balances it already: no site.
TEST(CopyAsActivation, NoSiteOnNeuronCoreV3) { EXPECT_TRUE(copy_sites(read(kernel_path()), 3).empty()); }

// Every site of the kernel (the copy's and the other moves') keeps its result.
TEST(CopyAsActivation, EverySiteOfTheKernelKeepsTheResult) {
  EXPECT_GE(loopnest_test::expect_every_site_keeps_result(kernel_path(), read(kernel_path()), kArgs), 1u);
}

}  // namespace
