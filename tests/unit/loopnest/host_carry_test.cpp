// A loop carrying a name that starts as a host number and becomes a tile (`carry = 0.0`, the scan's
// `initial=carry`, `carry = h[:, CH - 1:CH]`) lifts as one loop carrying a tile the binding fills
// with the number (src/loopnest/lift_host_carry.cpp): tests/kernels/host_carry_scan_api.py (nki API)
// and host_carry_scan.py (legacy). Before, the loop lifted as its 4 copies and every move inside it
// printed them unrolled (held-out author40 mamba: 79 changed lines for one engine_assign).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}});
const std::vector<std::string> kKernels = {"/tests/kernels/host_carry_scan_api.py", "/tests/kernels/host_carry_scan.py"};

TEST(HostCarry, ACarriedNumberBecomesAFilledTileAndTheLoopOneLoop) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string form = loopnest::dump(loopnest::lift_source(path, read(path), kArgs));
    EXPECT_NE(form.find("    carry = nl.full(shape=(128, 1), fill_value=0.0, dtype=float32, buffer=sbuf) @dve\n"
                        "    for j in sequential_range(4):\n"),
              std::string::npos) << file << "\n" << form;
    EXPECT_NE(form.find("initial=carry"), std::string::npos) << form;
    EXPECT_EQ(form.find("inline"), std::string::npos) << form;
    // Printed back unchanged: the author's `carry = 0.0`, which lifts to the same form.
    EXPECT_EQ(loopnest::emit_checked(loopnest::lift_source(path, read(path), kArgs), kArgs), read(path));
  }
}

// A number the tile's dtype does not hold exactly (0.1 in float32) would change the first
// iteration's values: the loop stays its copies, as Python runs them.
TEST(HostCarry, ANumberTheTileCannotHoldExactlyKeepsTheCopies) {
  std::string path = source_dir() + kKernels[0];
  std::string text = read(path);
  const std::string init = "            carry = 0.0\n";
  ASSERT_NE(text.find(init), std::string::npos);
  text.replace(text.find(init), init.size(), "            carry = 0.1\n");
  std::string form = loopnest::dump(loopnest::lift_source(path, text, kArgs));
  EXPECT_NE(form.find("inline for"), std::string::npos) << form;
  EXPECT_EQ(form.find("nl.full"), std::string::npos) << form;
}

// A move inside the loop prints the loop as written with the one statement changed. Golden
// tests/golden/loopnest/rewrite/host_carry_scan_api.engine_assign.py.
TEST(HostCarry, AMoveInsideTheLoopPrintsTheLoopNotItsCopies) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    const loopnest::Site* site = nullptr;
    for (const auto& s : sites)
      if (s.transform == "engine_assign" && !site) site = &s;
    ASSERT_NE(site, nullptr) << file;
    EXPECT_EQ(site->params.count("helpers"), 0u) << site->key();
    std::string after = loopnest::apply_site(path, text, kArgs, *site);
    EXPECT_NE(after.find("            carry = 0.0\n            for j in nl.sequential_range(seq // CH):\n"), std::string::npos)
        << after;
    EXPECT_NE(after.find("carry = h[:, CH - 1:CH]\n"), std::string::npos) << after;
    EXPECT_NE(after.find("engine=nisa.gpsimd_engine"), std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
    if (file.find("_api") == std::string::npos) continue;
    std::string golden = source_dir() + "/tests/golden/loopnest/rewrite/host_carry_scan_api.engine_assign.py";
    if (std::getenv("ACCELOPT_UPDATE_GOLDEN")) std::ofstream(golden) << after;
    EXPECT_EQ(after, read(golden)) << "(ACCELOPT_UPDATE_GOLDEN=1 regenerates it)";
  }
}

// Every site keeps the result; among them in_place, which must not write over `h` while `carry` is
// bound to a view of it (the form's copy is the text's alias: in_place.cpp viewed()).
TEST(HostCarry, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u) << file;
  }
}

}  // namespace
