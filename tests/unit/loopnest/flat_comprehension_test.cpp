// A flattened comprehension of tiles (two for-clauses, one list) lifts as the loop nest it means
// (src/loopnest/lift_flat_rolled.cpp), a loop reading its items by index stays one loop, and both
// print back as written or, changed, as a two-clause comprehension (emit_nested_rolled.cpp):
// tests/kernels/flat_transposed_chunks_api.py (and its legacy twin) builds `x_t = [nl.transpose(
// halves[h][:, c * CHUNK:(c + 1) * CHUNK]) for h in range(K // HALF) for c in range(chunks)]` and
// accumulates `for t in range(len(x_t)): acc += nl.matmul(x_t[t], w_tiles[t], transpose_x=True)`.
// Before, the comprehension ran copy by copy (4 tensors), the matmul loop lifted as 4 frozen copies
// and a move that opened them printed 4 unrolled lines where the author wrote a loop (held-out
// author42 gqa_full: 32).
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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 128, 512}, {512, 256}});
const std::vector<std::string> kKernels = {"/tests/kernels/flat_transposed_chunks_api.py",
                                           "/tests/kernels/flat_transposed_chunks.py"};

TEST(FlatComprehension, AFlattenedComprehensionIsOneLoopNestAndItsReaderOneLoop) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string form = loopnest::dump(loopnest::lift_source(path, read(path), kArgs));
    // One list tensor with a block dim per loop, both levels the one Python list.
    EXPECT_NE(form.find("tensor x_t_item: psum float32[2, 2 | 128, 128] value per r list 'x_t' over h of list 'x_t' over c"),
              std::string::npos) << file << "\n" << form;
    EXPECT_NE(form.find("  for h in range(2):\n    for c in range(2):\n      x_t_item = nl.transpose(x=halves_item[h, a0[128], 128*c + a1[128]])"),
              std::string::npos) << form;
    // Item t of the flat list is block (t // 2, t % 2): the matmul loop is one loop.
    EXPECT_NE(form.find("  for t in range(4):\n    acc += nl.matmul(x=x_t_item[t // 2, t % 2, a0[128], a1[128]]"),
              std::string::npos) << form;
    EXPECT_EQ(form.find("inline"), std::string::npos) << form;
  }
}

// The move changes the comprehension's element (its transpose copied out of PSUM); the matmul
// loop it leaves alone prints as written. Golden tests/golden/loopnest/rewrite/flat_transposed_chunks_api.evacuate_psum.py.
TEST(FlatComprehension, AMoveInTheComprehensionLeavesTheReadingLoopAsWritten) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
    const loopnest::Site* site = nullptr;
    for (const auto& s : sites)
      if (s.transform == "evacuate_psum") site = &s;
    ASSERT_NE(site, nullptr) << file;
    std::string after = loopnest::apply_site(path, text, kArgs, *site);
    EXPECT_NE(after.find("        x_t = [nl.copy(nl.transpose(halves[h][:, c * CHUNK:(c + 1) * CHUNK]))\n"
                         "               for h in range(K // HALF) for c in range(chunks)]\n"),
              std::string::npos) << after;
    EXPECT_NE(after.find("        for t in range(len(x_t)):\n            acc += nl.matmul(x_t[t], w_tiles[t], transpose_x=True)\n"),
              std::string::npos) << after;
    EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
    if (file.find("_api") == std::string::npos) continue;
    std::string golden = source_dir() + "/tests/golden/loopnest/rewrite/flat_transposed_chunks_api.evacuate_psum.py";
    if (std::getenv("ACCELOPT_UPDATE_GOLDEN")) std::ofstream(golden) << after;
    EXPECT_EQ(after, read(golden)) << "(ACCELOPT_UPDATE_GOLDEN=1 regenerates it)";
  }
}

TEST(FlatComprehension, EverySiteOfTheKernelPrintsAndKeepsItsResult) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), kArgs), 0u) << file;
  }
}

// Printed from the form (the path a changed statement takes): a two-clause comprehension of the
// element's call over the form's ranges, and the reading loop's `x_t[t]`, which lift again and
// compute the same.
TEST(FlatComprehension, PrintedFromTheFormItIsATwoClauseComprehensionAgain) {
  for (const auto& file : kKernels) {
    std::string path = source_dir() + file;
    std::string text = read(path);
    std::string printed = loopnest::emit_checked(loopnest::lift_source(path, text, kArgs), kArgs, {.regenerate = true});
    EXPECT_NE(printed.find("x_t = [nl.transpose(halves[h][:, 128*c:128*c + 128]) for h in range(2) for c in range(2)]"),
              std::string::npos) << printed;
    EXPECT_NE(printed.find("nl.matmul(x_t[t], w_tiles[t], transpose_x=True)"), std::string::npos) << printed;
    EXPECT_LT(rel_error(run(path, printed, kArgs), run(path, text, kArgs)), 1e-5) << printed;
  }
}

}  // namespace
