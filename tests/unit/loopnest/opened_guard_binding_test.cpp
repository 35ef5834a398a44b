// An opened helper's condition on a host value the helper bound from its argument (`t = i % n_rt;
// if t == 0:` in a helper called as `fetch(i + 1)`): opening drops the helper's host bindings (their
// values are in the operands), so the header as written named `t`, which the printed kernel never
// binds; the printed kernel did not lift and the helpers stayed closed (held-out author62's
// bmm_softmax: "cannot lift the name 'r'"). The header now prints from the form's condition on the
// loop variables. tests/kernels/batch_head_guard_{rows,api}.py: a closure, a module helper.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::expect_every_site_keeps_result;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

// 3 batches of 4 row tiles: the guard holds at 2 of the 11 prefetches in the loop.
const auto kArgs = arrays({{3, 512, 256}, {3, 128, 256}});

void expect_opens_with_the_guard_from_the_form(const std::string& file, const std::string& header) {
  std::string path = source_dir() + "/tests/kernels/" + file;
  std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, kArgs);
  auto closed = loopnest::helpers_stay_closed(k);
  EXPECT_FALSE(closed) << *closed;
  loopnest::Kernel opened = k;
  ASSERT_GE(loopnest::open_helpers(opened), 1) << file;
  // Printed and lifted again to the same form (emit_checked), the guard on the helper's host value
  // as the loop variable gives it (i + 1 is the argument), in the form's normal form.
  std::string after = loopnest::emit_checked(opened, kArgs);
  EXPECT_NE(after.find(header), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-6) << after;
  EXPECT_GE(expect_every_site_keeps_result(path, text, kArgs), 1u);
}

TEST(OpenedGuardBinding, AClosureGuardOnAHostValueItBoundPrintsFromTheForm) {
  expect_opens_with_the_guard_from_the_form("batch_head_guard_rows.py", "            if (i + 1) % 4 == 0:\n");
}

TEST(OpenedGuardBinding, AModuleHelperGuardOnAHostValueItBoundPrintsFromTheForm) {
  // `r = idx - b * n_rt` of idx = i + 1.
  expect_opens_with_the_guard_from_the_form("batch_head_guard_api.py", "            if i - 4*((i + 1) // 4) + 1 == 0:\n");
}

}  // namespace
