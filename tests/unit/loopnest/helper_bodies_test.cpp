// A move inside a helper's body printed in that body (helpers=body, src/loopnest/helper_bodies.h):
// made at every call of the helper (and every copy of a loop over a host sequence), the calls
// printed as written, the helper's changed statement printed once; refused where the move is not
// the same at every call. Kernels: tests/kernels/helper_body_rows.py (legacy nl: a module helper
// through a closure, from an affine loop and a host-list loop), helper_body_rows_api.py (nki API:
// a module helper from two loops), helper_body_mixed_args.py (a scalar at one call, a tile at the
// other).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/emit.h"
#include "loopnest/helper_bodies.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

struct Case {
  std::string file;
  std::vector<loopnest::ArgSpec> args;
  int first, last;  // the helper's body lines
};

const Case kRows{"/tests/kernels/helper_body_rows.py", arrays({{200, 512}, {200, 512}}), 15, 19};
const Case kApi{"/tests/kernels/helper_body_rows_api.py", arrays({{256, 1024}, {256, 1024}}), 13, 17};
const Case kMixed{"/tests/kernels/helper_body_mixed_args.py", arrays({{256, 512}, {256, 512}}), 11, 11};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

// The source lines (1-based) where `after` differs from `before`, which have as many lines.
std::set<int> changed_lines(const std::string& before, const std::string& after) {
  auto a = lines_of(before), b = lines_of(after);
  std::set<int> out;
  EXPECT_EQ(a.size(), b.size()) << after;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i]) out.insert(static_cast<int>(i + 1));
  return out;
}

// `after` without the import lines `before` does not have.
std::string without_new_imports(const std::string& before, const std::string& after) {
  const auto had = lines_of(before);
  const std::set<std::string> old(had.begin(), had.end());
  std::string out;
  for (const auto& l : lines_of(after))
    if (l.rfind("import ", 0) != 0 || old.count(l)) out += l + "\n";
  return out;
}

std::vector<loopnest::Site> body_sites(const std::string& path, const std::string& text, const Case& c) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, c.args)))
    if (s.params.count("helpers") && s.params.at("helpers") == "body") out.push_back(s);
  return out;
}

TEST(HelperBodies, AMoveInAHelperPrintsInItsBodyOnlyAndKeepsTheResult) {
  for (const Case* c : {&kRows, &kApi, &kMixed}) {
    const std::string path = source_dir() + c->file, text = read(path);
    const auto sites = body_sites(path, text, *c);
    EXPECT_FALSE(sites.empty()) << c->file;
    const auto want = run(path, text, c->args);
    for (const auto& site : sites) {
      const std::string after = loopnest::apply_site(path, text, c->args, site);
      // The helper's statement and nothing else (an import the new call needs aside).
      for (int line : changed_lines(text, without_new_imports(text, after)))
        EXPECT_TRUE(line >= c->first && line <= c->last) << site.key() << " changed line " << line << "\n" << after;
      EXPECT_LT(rel_error(run(path, after, c->args), want), 1e-5) << site.key() << "\n" << after;
    }
  }
}

TEST(HelperBodies, TheClosureAndTheHostListLoopOfferTheHelpersMoves) {
  const std::string path = source_dir() + kRows.file, text = read(path);
  // Opening the helper into the kernel does not print (the closure's dict comprehension of tiles).
  ASSERT_TRUE(loopnest::helpers_stay_closed(loopnest::lift_source(path, text, kRows.args)));
  std::set<std::string> moves;
  for (const auto& s : body_sites(path, text, kRows)) moves.insert(s.transform + " line=" + std::to_string(s.line));
  // 1 / (sq + 1) one tensor_scalar; each scaled operand of the blend, and 2 * mixed - inv, one
  // scalar_tensor_tensor; and the engines of their operations.
  EXPECT_TRUE(moves.count("fold_scalar_ops line=18"));
  EXPECT_TRUE(moves.count("fold_scalar_tensor_tensor line=16"));
  EXPECT_TRUE(moves.count("fold_scalar_tensor_tensor line=19"));
  EXPECT_TRUE(moves.count("engine_assign line=17"));
  // One site per move, not one per call: the affine loop's and the host list's calls are one.
  std::set<std::string> keys;
  for (const auto& s : body_sites(path, text, kRows)) {
    std::string key = s.transform + " " + s.anchor.substr(s.anchor.find('/') + 1);
    for (const auto& [k, v] : s.params) key += " " + k + "=" + v;
    EXPECT_TRUE(keys.insert(key).second) << key;
    EXPECT_EQ(s.anchor.substr(0, 2), "1/") << s.key();  // the first call's (the affine loop's) site
  }
  // Printed: the calls as written.
  const auto sites = body_sites(path, text, kRows);
  ASSERT_FALSE(sites.empty());
  const std::string after = loopnest::apply_site(path, text, kRows.args, sites.front());
  EXPECT_NE(after.find("        step(nl.ds(b * P, P))\n"), std::string::npos) << after;
  EXPECT_NE(after.find("        step(slice(lo, R))\n"), std::string::npos) << after;
  EXPECT_NE(after.find("        nl.store(out[rows, :], value=_blend(t))\n"), std::string::npos) << after;
}

TEST(HelperBodies, AMoveLegalAtOneCallOnlyIsNotPrintedInTheHelper) {
  const std::string path = source_dir() + kMixed.file, text = read(path);
  const loopnest::Kernel k = loopnest::lift_source(path, text, kMixed.args);
  // The folds of the multiply into the add: a tensor_scalar where the bias is 1.0, a
  // scalar_tensor_tensor where it is a tile. Neither is the same move at both calls.
  std::vector<loopnest::Site> all = loopnest::find_sites(k);
  for (const auto& s : all)
    if (s.transform.rfind("fold_", 0) == 0 && s.params.count("helpers")) EXPECT_NE(s.params.at("helpers"), "body") << s.key();
  // Asked for anyway, applying refuses it.
  loopnest::Kernel bodies = k;
  ASSERT_GT(loopnest::unfreeze_helper_bodies(bodies), 0);
  const loopnest::Transform* fold = loopnest::find_transform("fold_scalar_ops");
  ASSERT_TRUE(fold);
  auto folds = fold->find(bodies);
  ASSERT_FALSE(folds.empty());
  loopnest::Kernel after = bodies;
  EXPECT_THROW(loopnest::apply_at_every_call(after, *fold, folds.front()), loopnest::TransformError);
  loopnest::Site asked = folds.front();
  asked.params["helpers"] = "body";
  asked.node = -1;
  EXPECT_THROW(loopnest::apply_site(path, text, kMixed.args, asked), loopnest::TransformError);
  // The move at one call, printed in the helper, would change the other call: the printer refuses.
  loopnest::Kernel one = bodies;
  fold->apply(one, folds.front());
  EXPECT_THROW(loopnest::emit_checked(one, kMixed.args), loopnest::EmitError);
}

TEST(HelperBodies, TwoCallsChangedDifferentlyCannotBePrinted) {
  // The nki API helper's multiply moved to GpSimd at its first call and to the Scalar engine at
  // its second: one helper body cannot say both.
  const std::string path = source_dir() + kApi.file, text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, kApi.args);
  ASSERT_GT(loopnest::unfreeze_helper_bodies(k), 0);
  const loopnest::Transform* engines = loopnest::find_transform("engine_assign");
  ASSERT_TRUE(engines);
  auto sites = engines->find(k);
  const loopnest::Site* first = nullptr;
  for (const auto& s : sites)
    if (s.line == 16 && s.params.at("engine") == "gpsimd") first = first ? first : &s;
  ASSERT_TRUE(first);
  loopnest::Kernel once = k;
  engines->apply(once, *first);
  EXPECT_THROW(loopnest::emit_checked(once, kApi.args), loopnest::EmitError);
  loopnest::Kernel every = k;
  loopnest::apply_at_every_call(every, *engines, *first);
  const std::string printed = loopnest::emit_checked(every, kApi.args);
  EXPECT_NE(printed.find("    nisa.tensor_tensor(dst=y, data1=a_t, data2=g, op=nl.multiply, engine=nisa.gpsimd_engine)\n"),
            std::string::npos)
      << printed;
}

TEST(HelperBodies, EverySiteOfTheKernelsPrintsAndKeepsItsResult) {
  for (const Case* c : {&kRows, &kApi, &kMixed}) {
    const std::string path = source_dir() + c->file;
    EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, read(path), c->args), 0u) << c->file;
  }
}

}  // namespace
