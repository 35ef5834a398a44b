// middle_end (src/loopnest/middle_end.cpp): a kernel compiled without the compiler's middle end
// (`@nki.compiler.skip_middle_end_transformations`, however imported, above or below `@nki.jit`)
// runs in program order on every engine; the move deletes the decorator's line and nothing else,
// and the result simulates like the same program written without it; a second site also writes the
// loops run in order (a legacy `range`) affine_range. No site in a kernel that
// places its own buffers (the directive's documented use) or one without the decorator.
#include <sstream>

#include <gtest/gtest.h>

#include "corpus.h"
#include "text_edit.h"
#include "eval/profile_run.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::replace;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{1024, 512}, {1024, 512}});

std::vector<loopnest::Site> middle_end_sites(const std::string& text) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, kArgs)))
    if (s.transform == "middle_end") out.push_back(s);
  return out;
}

double simulated_us(const std::string& text) {
  eval::TraceRequest req = eval::trace_request_from_files(source_dir() + "/tests/kernels/spellings/expmul.ref.py",
                                                          source_dir() + "/tests/kernels/spellings/expmul_nisa.py");
  req.kernel_text = text;
  eval::ProfileRun run = eval::profile_kernel(req, "trn1", {.price_sbuf_space = false});
  EXPECT_TRUE(run.profile.has_value()) << text;
  return run.profile ? run.profile->latency * 1e3 : 0;
}

TEST(MiddleEnd, RemovesTheDecoratorAndTheKernelSimulatesLikeItsTwinWithout) {
  for (const char* name : {"program_order_rows.py", "program_order_grid.py"}) {
    SCOPED_TRACE(name);
    const std::string text = read(source_dir() + "/tests/kernels/" + name);
    auto sites = middle_end_sites(text);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("decorators"), "1");
    const std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
    // Exactly the decorator's line goes.
    std::string want;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("@", 0) != 0 || line.find("skip_middle_end_transformations") == std::string::npos) want += line + "\n";
    EXPECT_EQ(after, want);
    EXPECT_TRUE(middle_end_sites(after).empty()) << after;
    // Program order cost the rows' overlap: the result runs like the program written without it.
    const double before_us = simulated_us(text), after_us = simulated_us(after);
    EXPECT_GT(before_us, 1.2 * after_us);
    EXPECT_NEAR(after_us, simulated_us(read(source_dir() + "/tests/kernels/spellings/expmul_nisa.py")), 0.05 * after_us);
  }
}

// A course snippet's legacy `range` loop as well: the compiler runs it in order too, so removing the
// decorator alone leaves the rows serial; the second site writes the loop affine_range with it.
TEST(MiddleEnd, WithALoopRunInOrderTheSecondSiteWritesItAffineToo) {
  std::string text = read(source_dir() + "/tests/kernels/program_order_rows.py");
  replace(text, "for r in nl.affine_range(R // 128):", "for r in range(R // 128):");
  auto sites = middle_end_sites(text);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_FALSE(sites[0].params.count("then"));
  EXPECT_EQ(sites[1].params.at("then"), "affine_range");
  const std::string alone = loopnest::apply_site("k.py", text, kArgs, sites[0]);
  const std::string both = loopnest::apply_site("k.py", text, kArgs, sites[1]);
  EXPECT_NE(both.find("  for r in nl.affine_range(R // 128):\n"), std::string::npos) << both;
  const double affine_us = simulated_us(read(source_dir() + "/tests/kernels/spellings/expmul_nisa.py"));
  EXPECT_NEAR(simulated_us(both), affine_us, 0.05 * affine_us);
  EXPECT_GT(simulated_us(alone), 1.2 * affine_us);
}

TEST(MiddleEnd, NoSiteWithoutTheDecoratorOrWhereTheKernelPlacesItsBuffers) {
  EXPECT_TRUE(middle_end_sites(read(source_dir() + "/tests/kernels/spellings/expmul_nisa.py")).empty());
  // The directive's documented use: a kernel that allocates its tiles itself keeps it.
  std::string placed = read(source_dir() + "/tests/kernels/program_order_rows.py");
  replace(placed, "    xt = nl.load(", "    xt = nl.ndarray((128, C), dtype=x.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))\n    xt[...] = nl.load(");
  replace(placed, "import neuronxcc.nki.isa as nisa\n", "import neuronxcc.nki.isa as nisa\nimport neuronxcc.nki.compiler as ncc\n");
  EXPECT_TRUE(middle_end_sites(placed).empty()) << placed;
  std::string automatic = placed;  // the same tile left to the allocator: the site is back
  replace(automatic, "buffer=ncc.sbuf.mod_alloc(base_addr=0)", "buffer=nl.sbuf");
  EXPECT_EQ(middle_end_sites(automatic).size(), 1u) << automatic;
}

}  // namespace
