// jam_rows copies an Inline node of the row loop whole (src/loopnest/jam_inline.cpp): a list of
// tiles built by a comprehension, a helper looping over that list, a newer-API `range` loop unrolled
// while tracing (opened), the comprehensions printed once per row as the author's text with the row's tile names
// (tests/kernels/chunked_rows_comprehension.py, a researcher's high-level style). Before, a row
// loop holding a comprehension of tiles had no jam_rows site, its helpers opened or not (a node
// built with a comprehension never opens). Helper calls and host loops that open are opened first
// (`helpers=open`), not copied whole: each site is listed once.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 64}, {64, 512}, {512, 64}});
const std::string kPath = "/tests/kernels/chunked_rows_comprehension.py";

// The jam_rows site running two rows at once with the host loops opened (`helpers=open`: the
// `range` loop indexing a host list is unrolled as the kernel's statements, the comprehensions stay
// closed and are copied whole); nullptr when there is none.
const loopnest::Site* jam_by_two(const std::vector<loopnest::Site>& sites) {
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2" && s.params.count("helpers")) return &s;
  return nullptr;
}

TEST(JamInline, RowsOfComprehensionsAndListHelpersAreJammed) {
  std::string path = source_dir() + kPath;
  std::string text = read(path);
  loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
  auto sites = loopnest::find_sites(before);
  const loopnest::Site* jam = jam_by_two(sites);
  ASSERT_TRUE(jam) << "no jam_rows site on `for r`";
  std::string after = loopnest::apply_site(path, text, kArgs, *jam);
  // Each row's comprehensions, as written with the row's names (`parts`: a comprehension lifted as
  // its loop, copied per row; `weights_t`: two generators, lifted as its loop nest too,
  // lift_flat_rolled.cpp), the list helper opened (its comprehensions lifted as loops too, printed
  // from the form) and the range loop reading `weights_t[t]` one loop per row (before the flattened
  // comprehension rolled, it was 4 unrolled copies per row).
  for (const char* want : {"parts_0 = [nl.matmul(x_t_0, w_sb[:, c * CHUNK:(c + 1) * CHUNK], transpose_x=True) for c in range(n_chunks)]",
                           "parts_1 = [nl.matmul(x_t_1, w_sb[", "ex_1 = [nl.exp(parts_1[p]) for p in range(2)]",
                           "weights_1 = [ex_1[e] * inv_1 for e in range(2)]",
                           "weights_t_1 = [nl.transpose(weights_1[c][",
                           "    for t in range(4):\n        acc_1[...] += nl.matmul(weights_t_1[t], v_parts[t], transpose_x=True)\n"})
    EXPECT_NE(after.find(want), std::string::npos) << want << "\n" << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
}

TEST(JamInline, EverySiteOfTheKernelKeepsItsResult) {
  std::string path = source_dir() + kPath;
  std::string text = read(path);
  loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
  auto want = run(path, text, kArgs);
  auto sites = loopnest::find_sites(before);
  ASSERT_FALSE(sites.empty());
  for (const auto& site : sites) {
    std::string after;
    try {
      after = loopnest::apply_site(path, text, kArgs, site);
      EXPECT_LT(rel_error(run(path, after, kArgs), want), 1e-5) << site.key() << "\n" << after;
    } catch (const std::exception& e) {
      ADD_FAILURE() << site.key() << ": " << e.what() << "\n" << after;
    }
  }
}

// An Inline node (a `range` loop unrolled while tracing, as it indexes a host list) naming a
// binding of the row (`r0 = r * TILE`, which the rows' copies write out in their accesses and no
// longer print) cannot be printed per row by renaming tiles: no jam_rows
// site on the closed kernel, rather than a kernel reading an unbound name (the first listing printed
// one, refused only when applied).
TEST(JamInline, AnInlineNamingABindingOfTheRowStaysUnjammed) {
  std::string path = source_dir() + kPath;
  std::string text = read(path);
  const std::string store = "        nl.store(out[r * TILE:(r + 1) * TILE, :], value=acc)\n";
  ASSERT_NE(text.find(store), std::string::npos);
  text.replace(text.find(store), store.size(),
               "        r0 = r * TILE\n"
               "        for h in range(2):\n"
               "            nl.store(out[r0:r0 + TILE, h * 32:(h + 1) * 32],\n"
               "                     value=nl.add(acc[:, h * 32:(h + 1) * 32], v_parts[h][:, 0:32]))\n");
  loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
  auto sites = loopnest::find_sites(before);
  // Closed, the loop is refused; with the helpers and host loops opened (`helpers=open`, the loop's
  // copies printed from the form, r0 written out) the rows are jammed, their comprehensions copied.
  bool closed_jam = false, opened_jam = false;
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2") (s.params.count("helpers") ? opened_jam : closed_jam) = true;
  EXPECT_FALSE(closed_jam);
  EXPECT_TRUE(opened_jam);
  auto want = run(path, text, kArgs);
  for (const auto& site : sites)
    EXPECT_LT(rel_error(run(path, loopnest::apply_site(path, text, kArgs, site), kArgs), want), 1e-5) << site.key();
}

// A row whose comprehension holds a list of PSUM tiles filling the PSUM (16 chunks of 1 KiB per
// partition) is not jammed: two rows would hold two such lists and spill (held-out attention and
// bmm+softmax kernels of this style ran 2.2x slower jammed).
TEST(JamInline, RowsHoldingAListOfPsumTilesFillingThePsumAreNotJammed) {
  std::string path = source_dir() + kPath;
  std::string text = read(path);
  const auto args = arrays({{256, 64}, {64, 4096}, {4096, 64}});
  loopnest::Kernel before = loopnest::lift_source(path, text, args);
  for (const auto& s : loopnest::find_sites(before)) EXPECT_NE(s.transform, "jam_rows") << s.key();
}

}  // namespace
