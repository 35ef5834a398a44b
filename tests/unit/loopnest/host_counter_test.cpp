// Host counters as induction variables (lift_counter.cpp, counter_sum.h): a Python int bumped while
// the loops run (a list's item bumped in a closure, a helper's `nonlocal`, `count += 1` in a loop's
// body), its value a buffer or output index. Lifted as loops with the counter an expression of
// their indices; opened and printed from the form, every store lands where the trace put it (the
// kernels use the counter as the output block, so a wrong count stores elsewhere). Refused by name
// where the count is no sum the form writes.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "loopnest/counter_sum.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest::IExpr;
using loopnest_test::arrays;
using loopnest_test::expect_every_site_keeps_result;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

std::string kernel_path(const std::string& name) { return source_dir() + "/tests/kernels/" + name; }

// Lifts as loops (no copies), and the kernel with its helpers opened, printed from the form (the
// stores at the counter's expression of the indices), lifts again and computes what the kernel does.
void expect_counted(const std::string& name, const std::vector<loopnest::ArgSpec>& args,
                    const std::vector<std::string>& loops) {
  const std::string path = kernel_path(name);
  const std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, args);
  const std::string dump = loopnest::dump(k);
  for (const auto& l : loops) EXPECT_NE(dump.find(l), std::string::npos) << name << ": " << l << "\n" << dump;
  EXPECT_EQ(dump.find("inline for"), std::string::npos) << name << "\n" << dump;
  loopnest::Kernel opened = k;
  loopnest::open_helpers(opened);
  const std::string printed = loopnest::emit_checked(opened, args, {.regenerate = true});
  EXPECT_LT(rel_error(run(path, printed, args), run(path, text, args)), 1e-6) << printed;
  // As written, printed back unchanged: the author's counter kept.
  EXPECT_EQ(loopnest::emit_checked(k, args), text);
}

TEST(HostCounter, AListItemBumpedInClosuresUnderConditionsOnTheIndexIsCounted) {
  // 6 row tiles: per iteration two halves, a y block at odd i, a sum while i + 1 < 6.
  auto args = arrays({{768, 256}, {384, 256}});
  expect_counted("counter_list_closure_rows.py", args, {"for i in sequential_range(6):", "for c in affine_range(2):"});
  EXPECT_GE(expect_every_site_keeps_result(kernel_path("counter_list_closure_rows.py"),
                                           read(kernel_path("counter_list_closure_rows.py")), args),
            1u);
}

TEST(HostCounter, ANonlocalCounterOfTheNewerApiIsCounted) {
  auto args = arrays({{384, 768}});
  expect_counted("counter_nonlocal_api.py", args, {"for i in affine_range(3):", "for c in affine_range(3):"});
  // Slot of the block at (i, c): the blocks before row tile i (3 each, one more for every tile after
  // the first) plus the one `if i > 0:` puts first, plus c.
  loopnest::Kernel k = loopnest::lift_source(kernel_path("counter_nonlocal_api.py"), read(kernel_path("counter_nonlocal_api.py")), args);
  const std::string dump = loopnest::dump(k);
  EXPECT_NE(dump.find("dst=out[3*i + max(0, i - 1), "), std::string::npos) << dump;
  EXPECT_GE(expect_every_site_keeps_result(kernel_path("counter_nonlocal_api.py"), read(kernel_path("counter_nonlocal_api.py")), args),
            1u);
}

TEST(HostCounter, APlainIntBumpedInAnInnerLoopIsCounted) {
  // Before, the loop over row groups lifted as its copies (a Python value updated in a loop).
  auto args = arrays({{512, 256}});
  expect_counted("counter_plain_rows.py", args,
                 {"for g in sequential_range(2):", "for r in affine_range(2):", "for c in affine_range(2):"});
  loopnest::Kernel k = loopnest::lift_source(kernel_path("counter_plain_rows.py"), read(kernel_path("counter_plain_rows.py")), args);
  const std::string dump = loopnest::dump(k);
  // tcount % 2 of the count 4g + 2r + c is c; the output block is the count itself.
  EXPECT_NE(dump.find("buf[c, a0[128], a1[128]] = nl.load"), std::string::npos) << dump;
  EXPECT_NE(dump.find("dst=out[128*c + 512*g + 256*r + a0[128]"), std::string::npos) << dump;
  EXPECT_GE(expect_every_site_keeps_result(kernel_path("counter_plain_rows.py"), read(kernel_path("counter_plain_rows.py")), args), 1u);
}

// `kind` is the column count over 64, less one.
std::vector<loopnest::ArgSpec> refused_args(int64_t tiles, int kind) { return arrays({{tiles * 128, 64 * (kind + 1)}}); }

// Each refused count: with a loop too long to unroll (1100 iterations), the lift fails naming the
// counter; with 7 iterations the loop lifts as its copies, as a Python value updated per iteration
// did before.
TEST(HostCounter, ACountTheFormCannotWriteIsRefusedByName) {
  const std::string path = kernel_path("counter_refused_rows.py");
  const std::string text = read(path);
  const char* why[] = {"not a count of the iterations", "not a count of the iterations", "depend on its own value"};
  for (int kind = 0; kind < 3; ++kind) {
    try {
      loopnest::lift_source(path, text, refused_args(1100, kind));
      ADD_FAILURE() << "kind " << kind << " lifted";
    } catch (const loopnest::LiftError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the Python counter 'count[0]'"), std::string::npos) << kind << ": " << what;
      EXPECT_NE(what.find(why[kind]), std::string::npos) << kind << ": " << what;
    }
    // 7 iterations: `i % 3` no range of a smaller loop decides.
    auto args = refused_args(7, kind);
    loopnest::Kernel k = loopnest::lift_source(path, text, args);
    const std::string dump = loopnest::dump(k);
    EXPECT_EQ(dump.find("for i in"), std::string::npos) << kind << "\n" << dump;
    loopnest::Kernel opened = k;
    loopnest::open_helpers(opened);
    // The copies printed from the form lift again to it (the output's unwritten rows are no result
    // to compare).
    EXPECT_NO_THROW(loopnest::emit_checked(opened, args, {.regenerate = true})) << kind;
  }
}

// The sums themselves, against counting: bumps under a range and a congruence of the index.
TEST(HostCounter, SumsOfGuardedBumpsMatchCounting) {
  using loopnest::Cmp;
  const IExpr m = IExpr::var(loopnest::kSumIndex), i = IExpr::var(0);
  // 32 at (m + 1) % 4 == 0 while m + 1 < 11, 1 while m < 12, 8 when m > 0.
  IExpr f = IExpr::select(m + 1 - 11, Cmp::Lt, 0, IExpr::select(IExpr::mod(m + 1, 4), Cmp::Eq, 0, 32, 0), 0) +
            IExpr::select(m - 12, Cmp::Lt, 0, 1, 0) + IExpr::select(m, Cmp::Gt, 0, 8, 0);
  loopnest::Ranges rg = {{0, {0, 12}}};
  auto s = loopnest::sum_over(f, 0, i, &rg);
  ASSERT_TRUE(s);
  int64_t want = 0;
  for (int64_t at = 0; at <= 12; ++at) {
    EXPECT_EQ(s->eval({{0, at}}), want) << at << ": " << s->str([](int v) { return "v" + std::to_string(v); });
    want += ((at + 1 < 11 && (at + 1) % 4 == 0) ? 32 : 0) + (at < 12 ? 1 : 0) + (at > 0 ? 8 : 0);
  }
  // A bump by the index itself is no such sum.
  EXPECT_FALSE(loopnest::sum_over(m * 2 + 1, 0, i, &rg));
}

}  // namespace
