// A helpers=open move prints only the calls it changed opened: every other helper call (and host
// loop) it left as opening made it is the author's call again (src/loopnest/reclose_calls.cpp); a
// move inside one helper's body, made at every call, prints in that body (helpers=body).
// tests/kernels/two_helpers_rows_api.py (nki API) and its legacy twin two_helpers_rows.py load each
// row block with `_load_rows` and transform it with `_scaled_exp`; a move inside the second (its
// multiply's engine, in_place) used to print both helpers inlined (held-out author37 gqa_full: six
// untouched helpers, 101 changed lines for one engine_assign; now 19).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 512}});
const std::vector<std::string> kKernels = {"/tests/kernels/two_helpers_rows_api.py", "/tests/kernels/two_helpers_rows.py"};

TEST(RecloseCalls, AMoveInOneHelperLeavesTheOtherCallAsWritten) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    size_t opened = 0;
    for (const auto& site : sites) {
      if (!site.params.count("helpers")) continue;
      ++opened;
      std::string after = loopnest::apply_site(path, text, kArgs, site);
      // The untouched helper: its call and its def as written.
      EXPECT_NE(after.find("        t = _load_rows(x, r)\n"), std::string::npos) << site.key() << "\n" << after;
      EXPECT_NE(after.find("def _load_rows(src, r):\n"), std::string::npos) << site.key() << "\n" << after;
      // The changed one: opened, its call gone; or, a move printed in its body (helpers=body,
      // helper_bodies_test.cpp), its call as written.
      const bool in_body = site.params.at("helpers") == "body";
      EXPECT_EQ(after.find("_scaled_exp(t)") != std::string::npos, in_body) << site.key() << "\n" << after;
      EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << site.key() << "\n" << after;
      if (file.find("_api") == std::string::npos || site.transform != "engine_assign" || site.params.at("engine") != "gpsimd")
        continue;
      std::string golden = source_dir() + "/tests/golden/loopnest/rewrite/two_helpers_rows_api.engine_assign.py";
      if (std::getenv("ACCELOPT_UPDATE_GOLDEN")) std::ofstream(golden) << after;
      EXPECT_EQ(after, read(golden)) << "(ACCELOPT_UPDATE_GOLDEN=1 regenerates it)";
    }
    EXPECT_GE(opened, 2u) << file;
  }
}

TEST(RecloseCalls, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u) << file;
  }
}

}  // namespace
