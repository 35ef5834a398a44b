// The built-in agent lifts a kernel for the run's target: a kernel choosing its code by
// nisa.get_nc_version() offers the sites of the branch that target's trace runs (gen3 on trn2),
// and a site found there applies. It lifted for trn1 on every run before (optimize --arch trn2
// rewrote the gen2 branch the run never executes).
#include <algorithm>

#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

const char* kByTarget = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    if nisa.get_nc_version() >= nisa.nc_version.gen3:
        y = nl.multiply(t, 2.0)
    else:
        y = nl.exp(t)
    nl.store(out, value=y)
    return out
)";

constexpr int kGen3Line = 11;  // y = nl.multiply(t, 2.0)

std::vector<loopnest::ArgSpec> args() {
  loopnest::ArgSpec x;
  x.is_array = true;
  x.shape = {128, 512};
  x.dtype = "float32";
  return {x};
}

bool has_site_on(const std::vector<Site>& sites, const std::string& transform, int line) {
  return std::any_of(sites.begin(), sites.end(), [&](const Site& s) {
    auto l = s.params.find("line");
    return s.transform == transform && l != s.params.end() && l->second == std::to_string(line);
  });
}

TEST(BuiltinNcVersion, TargetsOfTheRunChooseTheBranchLifted) {
  EXPECT_EQ(nc_version_of("trn1"), 2);
  EXPECT_EQ(nc_version_of("trn2"), 3);
  auto trn2 = find_sites(kByTarget, args(), "", nc_version_of("trn2"));
  auto trn1 = find_sites(kByTarget, args(), "", nc_version_of("trn1"));
  EXPECT_TRUE(has_site_on(trn2, "engine_assign", kGen3Line));
  EXPECT_FALSE(has_site_on(trn1, "engine_assign", kGen3Line));
  // A gen3 site applies when lifted for trn2 (the executor's apply_site takes the same target).
  auto site = std::find_if(trn2.begin(), trn2.end(), [](const Site& s) { return s.transform == "engine_assign"; });
  ASSERT_NE(site, trn2.end());
  std::string rewritten = apply_site(kByTarget, *site, args(), "", 3);
  EXPECT_NE(rewritten, kByTarget);
  EXPECT_NE(rewritten.find("else:\n        y = nl.exp(t)"), std::string::npos) << rewritten;  // the other branch as written
}

}  // namespace
}  // namespace agents::builtin
