// Library-style kernels (issue 13) whose tile work sat in constructs the printer could not write
// back once opened, so no move saw it:
// - an element-wise driver taking its per-tile math as a callable (a function, a lambda, a
//   functools.partial) and loading its operands with a comprehension over a host list of sources
//   (tests/kernels/callable_driver_rows.py): opened, the comprehension's items `ins[0]`, ... print
//   as the display binding the list, `ins = [nl.load(...)]` (emit_list_display.cpp; before, "a
//   changed call of a helper function cannot be printed");
// - a list made by `map` over a lambda (mapped_blocks_api.py): its items printed alone read
//   `parts[0] = nl.load(...)` of a list never bound;
// - a user decorator forwarding to the kernel's def (checked_decorator_rows.py,
//   forwarding_decorator.cpp): the def is lifted, the wrapper printed as written;
// - `getattr(nl, name)` with a name known while tracing (named_ops_api.py);
// - a grid driver recursing once per grid axis whose bodies drive grids of their own, 11 helper
//   calls deep (recursive_grid_rows.py; refused as "nested this deep" beyond 8 before session 45).
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::expect_every_site_keeps_result;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const loopnest::Site* find(const std::vector<loopnest::Site>& sites, const std::string& transform, bool opened) {
  for (const auto& s : sites)
    if (s.transform == transform && (s.params.count("helpers") > 0) == opened) return &s;
  return nullptr;
}

TEST(CallableDriver, TheDriverOpensWithEachCallableAndItsListOfLoads) {
  std::string path = source_dir() + "/tests/kernels/callable_driver_rows.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}, {256, 1024}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  EXPECT_FALSE(loopnest::helpers_stay_closed(k)) << *loopnest::helpers_stay_closed(k);
  auto sites = loopnest::find_sites(k);
  const loopnest::Site* fold = find(sites, "fold_silu", true);
  ASSERT_NE(fold, nullptr);
  std::string after = loopnest::apply_site(path, text, args, *fold);
  // The first driver call opened: its list of one load bound by its display, the callable's
  // sigmoid-times-input one silu; the driver and the other callables printed from the form.
  EXPECT_NE(after.find("            ins = [nl.load(x[128*r:128*r + 128, 512*c:512*c + 512])]\n"), std::string::npos) << after;
  EXPECT_NE(after.find("nl.silu(x=ins[0])"), std::string::npos) << after;
  EXPECT_EQ(after.find("ins[0] = "), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, args), run(path, text, args)), 1e-5) << after;
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 10u);
}

TEST(CallableDriver, ARecursiveGridDriverNestedThreeBodiesDeepLiftsAndOpens) {
  std::string path = source_dir() + "/tests/kernels/recursive_grid_rows.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  EXPECT_FALSE(loopnest::helpers_stay_closed(k)) << *loopnest::helpers_stay_closed(k);
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 5u);
}

TEST(CallableDriver, AListMadeByMapOfLambdasPrintsAsItsDisplay) {
  std::string path = source_dir() + "/tests/kernels/mapped_blocks_api.py";
  std::string text = read(path);
  auto args = arrays({{128, 512}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  EXPECT_FALSE(loopnest::helpers_stay_closed(k)) << *loopnest::helpers_stay_closed(k);
  auto sites = loopnest::find_sites(k);
  const loopnest::Site* in_place = find(sites, "in_place", true);
  ASSERT_NE(in_place, nullptr);
  std::string after = loopnest::apply_site(path, text, args, *in_place);
  // The move leaves the mapped loads alone: the author's `map` again (reclose_calls.cpp, session 38;
  // before, opened, it printed as the list's display `parts = [nl.load(x[:, 0:128]), ...]`).
  EXPECT_NE(after.find("    parts = list(map(lambda j: nl.load(x[:, j * B:(j + 1) * B]), range(cols // B)))\n"),
            std::string::npos)
      << after;
  EXPECT_LT(rel_error(run(path, after, args), run(path, text, args)), 1e-5) << after;
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 3u);
}

TEST(ForwardingDecorator, TheDecoratedDefIsTheKernelAndTheWrapperIsKept) {
  std::string path = source_dir() + "/tests/kernels/checked_decorator_rows.py";
  std::string text = read(path);
  auto args = arrays({{256, 256}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  auto sites = loopnest::find_sites(k);
  const loopnest::Site* in_place = find(sites, "in_place", false);
  ASSERT_NE(in_place, nullptr);
  std::string after = loopnest::apply_site(path, text, args, *in_place);
  // The decorator and its wrapper's host checks as written; the move in the kernel's def.
  EXPECT_EQ(after.substr(0, after.find("@nki.jit")), text.substr(0, text.find("@nki.jit"))) << after;
  EXPECT_NE(after.find("@nki.jit\n@two_dim_inputs\ndef kernel(x):\n"), std::string::npos) << after;
  EXPECT_NE(after.find("        t[...] = nl.exp(t)\n"), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, args), run(path, text, args)), 1e-5) << after;
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 3u);
}

TEST(GetattrOfModule, AnActivationPickedByNameLifts) {
  std::string path = source_dir() + "/tests/kernels/named_ops_api.py";
  std::string text = read(path);
  auto args = arrays({{128, 256}});
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  std::string form = loopnest::dump(k);
  EXPECT_NE(form.find("nl.exp("), std::string::npos) << form;
  EXPECT_NE(form.find("nl.tanh("), std::string::npos) << form;
  EXPECT_GE(expect_every_site_keeps_result(path, text, args), 1u);
}

}  // namespace
