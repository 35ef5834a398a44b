// hoist and a name the loop's body binds again (hoist.cpp rebinds_in_loop): a load the same in
// every iteration whose name the body binds again (a ragged tail's `wt` after the column loop's,
// two weight halves both loaded into `wt`) is not offered, since printed before the loop the name
// would mean another tile where it is read; named apart, the same loads are offered and keep the
// result. Legacy and newer API (tests/kernels/rebound_*.py, renamed_halves{,_api}.py). The sites
// were offered before and the print-back check refused them (3 per halves kernel, 1 per tail).
#include <gtest/gtest.h>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kEven = arrays({{128, 256}, {128, 1024}});
const std::vector<loopnest::ArgSpec> kRagged = arrays({{128, 256}, {128, 1280}});  // a 256-column tail

std::string kernel(const std::string& name) { return read(source_dir() + "/tests/kernels/" + name + ".py"); }

std::vector<loopnest::Site> hoists(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "hoist") out.push_back(s);
  return out;
}

TEST(HoistRebound, ALoadWhoseNameTheLoopBindsAgainIsNotOffered) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    for (const auto& [name, args] : {std::pair{"rebound_tail", &kRagged}, std::pair{"rebound_halves", &kEven}}) {
      SCOPED_TRACE(name);
      std::string text = kernel(name + std::string(style));
      EXPECT_TRUE(hoists(text, *args).empty());
      // What is offered prints back (the corpus tests run each site's numerics).
      for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, *args)))
        EXPECT_NO_THROW(loopnest::apply_site("k.py", text, *args, s)) << s.key();
    }
  }
}

TEST(HoistRebound, TheSameLoadsNamedApartAreHoistedAndKeepTheResult) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("renamed_halves") + style);
    auto sites = hoists(text, kEven);
    ASSERT_EQ(sites.size(), 3u);  // each half, and both (`all=2`)
    auto want = loopnest_test::run("k.py", text, kEven);
    EXPECT_EQ(loads_of(text, kEven, 1), 4);  // 2 row tiles x 2 halves
    for (const auto& s : sites) {
      std::string after = loopnest::apply_site("k.py", text, kEven, s);
      EXPECT_EQ(loads_of(after, kEven, 1), s.params.count("all") ? 2 : 3) << after;
      EXPECT_LT(loopnest_test::rel_error(loopnest_test::run("k.py", after, kEven), want), 1e-6) << after;
    }
  }
}

}  // namespace
