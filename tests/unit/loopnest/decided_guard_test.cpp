// Moves through `if`s the kernel's Python decides while tracing (nest_walk.h transparent_block): a
// nest under a guard that compares shapes and holds (`if K <= 128:`, `if M % 128 == 0:`, a tail's
// `if rem > 0:`) offers the sites of the same nest written without it, in the legacy and the newer
// API (tests/kernels/guarded_cols_*.py, guarded_transpose_rows{,_api}.py, guarded_nests_*.py);
// applied, the guard prints where it was written, the moved statement before the loop it leaves.
// A failing if's else branch written runs always: it is seen through alike (guarded_cols_else*.py,
// guarded_cols_tail_else*.py). A statement hoist or hoist_expand takes out of such guards prints
// before the loop under a copy of their conditions (`if rem > 0:`, `if rem != 0:` for the else
// branch of `if rem == 0:`), with the guards' bindings it names, so the printed kernel keeps its
// result at shapes where the guard fails too. A guard that may fail (it names a loop
// variable) or a holding one with an else branch stays a wall. That every site of these kernels
// keeps their result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include <set>

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

const std::vector<loopnest::ArgSpec> kEven = arrays({{128, 256}, {128, 1024}});    // N % 512 == 0
const std::vector<loopnest::ArgSpec> kRagged = arrays({{128, 256}, {128, 1280}});  // a 256-column tail

std::string kernel(const std::string& name) { return read(source_dir() + "/tests/kernels/" + name + ".py"); }

// Each site as transform, anchor and parameters, without its line (the guard shifts the lines).
std::set<std::string> moves(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::set<std::string> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args))) {
    std::string key = s.transform + " " + s.anchor;
    for (const auto& [name, value] : s.params)
      if (name != "line") key += " " + name + "=" + value;
    out.insert(key);
  }
  return out;
}

const loopnest::Site& site_of(const std::vector<loopnest::Site>& sites, const std::string& transform) {
  for (const auto& s : sites)
    if (s.transform == transform) return s;
  throw std::runtime_error("no " + transform + " site");
}

void expect_contains(const std::set<std::string>& have, const std::set<std::string>& want) {
  for (const auto& m : want) EXPECT_TRUE(have.count(m)) << "missing: " << m;
}

// The output of the kernel text, run on the test inputs.
std::vector<std::vector<double>> run(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  return loopnest_test::run("k.py", text, args);
}

TEST(DecidedGuard, TheGuardedNestsOfferThePlainNestsSitesInBothApis) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    for (const auto* args : {&kEven, &kRagged}) {
      std::set<std::string> plain = moves(kernel(std::string("guarded_cols_plain") + style), *args);
      ASSERT_TRUE(plain.count("hoist_expand 2x2/load#0 out_of=1")) << *plain.begin();
      // (b) the whole nest under `if M % 128 == 0:`, (b') the column loop under `if K <= 128:` in the
      // row loop, (c) / (d) the tail under `if rem > 0:` decided false at 1024 columns, true at 1280.
      for (const char* v : {"whole", "inner", "tail"}) {
        SCOPED_TRACE(v);
        expect_contains(moves(kernel(std::string("guarded_cols_") + v + style), *args), plain);
      }
    }
  }
}

TEST(DecidedGuard, TheTransposeNestUnderAGuardOffersTheUnguardedSites) {
  const auto args = arrays({{256, 256}, {256, 1024}});
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::set<std::string> plain = moves(kernel(std::string("nested_transpose_rows") + style), args);
    std::set<std::string> guarded = moves(kernel(std::string("guarded_transpose_rows") + style), args);
    // interchange_loops, hoist_expand of b's blocks out of `for row`, reuse_operand: lost before.
    EXPECT_EQ(guarded, plain);
  }
}

TEST(DecidedGuard, TwoNestsUnderAGuardFuseAsWrittenPlainly) {
  const auto args = arrays({{256, 512}, {256, 512}});
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::set<std::string> plain = moves(kernel(std::string("guarded_nests_plain") + style), args);
    ASSERT_TRUE(plain.count("fuse_nests 2/load#0"));
    // Both nests under `if M % 128 == 0:` (side by side in the guard's body), and the second body
    // under `if K <= 512:`: fusion found neither before.
    for (const char* v : {"whole", "inner"}) {
      SCOPED_TRACE(v);
      std::string text = kernel(std::string("guarded_nests_") + v + style);
      EXPECT_EQ(moves(text, args), plain);
      auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, args));
      std::string after = loopnest::apply_site("k.py", text, args, site_of(sites, "fuse_nests"));
      size_t def = after.find("def kernel");
      size_t first = after.find("for m in", def);
      EXPECT_EQ(after.find("for m in", first + 1), std::string::npos) << after;  // one loop
      EXPECT_NE(after.find(std::string(v) == "whole" ? "if M % 128 == 0:" : "if K <= 512:", def), std::string::npos);
      EXPECT_LT(loopnest_test::rel_error(run(after, args), run(text, args)), 1e-6);
    }
  }
}

TEST(DecidedGuard, AHoistOutOfTheRowLoopLeavesTheGuardWhereItWasWritten) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("guarded_cols_inner") + style);
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kEven));
    std::string after = loopnest::apply_site("k.py", text, kEven, site_of(sites, "hoist_expand"));
    // 2 row tiles x 2 column blocks, then the 2 blocks once.
    EXPECT_EQ(loads_of(text, kEven, 1), 4);
    EXPECT_EQ(loads_of(after, kEven, 1), 2) << after;
    size_t def = after.find("def kernel");  // (the comments above name the guard too)
    size_t fill = after.find("wt[", def);
    // (The fill is under a copy of the guard, before `for m`.)
    size_t rows = after.find("for m in", def), guard = after.find("if K <= 128:", rows);
    ASSERT_NE(guard, std::string::npos) << after;
    EXPECT_LT(fill, rows) << after;
    EXPECT_LT(rows, guard) << after;
    EXPECT_LT(loopnest_test::rel_error(run(after, kEven), run(text, kEven)), 1e-6);
  }
}

TEST(DecidedGuard, ATailsWeightLoadLeavesTheRowLoopWhenItsGuardHolds) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("guarded_cols_tail") + style);
    // rem == 0: nothing of the tail is lifted; no site names it.
    EXPECT_EQ(moves(text, kEven), moves(kernel(std::string("guarded_cols_plain") + style), kEven));
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kRagged));
    const loopnest::Site& hoist = site_of(sites, "hoist");
    EXPECT_EQ(hoist.params.at("what"), "statement");
    std::string after = loopnest::apply_site("k.py", text, kRagged, hoist);
    // 2 row tiles x (2 blocks + the tail), then the tail once.
    EXPECT_EQ(loads_of(text, kRagged, 1), 6);
    EXPECT_EQ(loads_of(after, kRagged, 1), 5) << after;
    size_t def = after.find("def kernel");  // (the comments above name the guard too)
    // (The load before the loop is under a copy of the guard: AStatementHoistedOutOfAGuardPrintsUnderItsCondition.)
    size_t rows = after.find("for m in", def), guard = after.find("if rem > 0:", rows);
    ASSERT_NE(guard, std::string::npos) << after;
    EXPECT_LT(after.find("w_tail", def), rows) << after;
    EXPECT_LT(loopnest_test::rel_error(run(after, kRagged), run(text, kRagged)), 1e-6);
  }
}

TEST(DecidedGuard, AFailingIfsElseBranchOffersThePlainNestsSitesInBothApis) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    // The column loop in the else branch of `if N % NB != 0:` (false at 1024 columns).
    std::string text = kernel(std::string("guarded_cols_else") + style);
    EXPECT_EQ(moves(text, kEven), moves(kernel(std::string("guarded_cols_plain") + style), kEven));
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kEven));
    std::string after = loopnest::apply_site("k.py", text, kEven, site_of(sites, "hoist_expand"));
    EXPECT_EQ(loads_of(after, kEven, 1), 2) << after;  // the 2 blocks once, not per row tile
    size_t def = after.find("def kernel");
    size_t rows = after.find("for m in", def), guard = after.find("if N % NB != 0:", def);
    size_t other = after.find("else:", guard);
    EXPECT_LT(rows, guard) << after;
    EXPECT_NE(other, std::string::npos) << after;
    EXPECT_LT(loopnest_test::rel_error(run(after, kEven), run(text, kEven)), 1e-6);
    // The ragged tail in the else branch of `if rem == 0:` (false at 1280 columns): the sites of the
    // tail under `if rem > 0:`.
    EXPECT_EQ(moves(kernel(std::string("guarded_cols_tail_else") + style), kRagged),
              moves(kernel(std::string("guarded_cols_tail") + style), kRagged));
  }
}

// The hoisted statement prints before `for m` under its guard's condition: where the tail is empty
// (1024 columns) it does not run, and the printed kernel, lifted at 1280 columns, keeps its result
// at 1024 too (unguarded it loaded an empty block there).
TEST(DecidedGuard, AStatementHoistedOutOfAGuardPrintsUnderItsCondition) {
  for (const char* style : {"", "_api"}) {
    for (const auto& [name, header] : {std::pair{"guarded_cols_tail", "if rem > 0:"},
                                       std::pair{"guarded_cols_tail_else", "if rem != 0:"}}) {
      SCOPED_TRACE(name + std::string(style));
      std::string text = kernel(name + std::string(style));
      auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kRagged));
      std::string after = loopnest::apply_site("k.py", text, kRagged, site_of(sites, "hoist"));
      size_t def = after.find("def kernel");
      size_t copy = after.find(header, def), load = after.find("w_tail", def), rows = after.find("for m in", def);
      ASSERT_NE(copy, std::string::npos) << after;
      EXPECT_LT(copy, load) << after;
      EXPECT_LT(load, rows) << after;
      EXPECT_EQ(after.find(header, copy + 1) < rows, false) << after;  // one copy, the declaration with the copy in it
      EXPECT_LT(loopnest_test::rel_error(run(after, kRagged), run(text, kRagged)), 1e-6);
      EXPECT_LT(loopnest_test::rel_error(run(after, kEven), run(text, kEven)), 1e-6);
      EXPECT_EQ(loads_of(after, kEven, 1), loads_of(text, kEven, 1)) << after;
    }
  }
  // A guard naming a binding of the loop's body (`tail = rem > 0` in `for m`) is not printed before
  // it: the statement moves unguarded, as before.
  std::string text = kernel("guarded_cols_tail");
  std::string local = text;
  local.replace(local.find("        if rem > 0:"), 19, "        tail = rem > 0\n        if tail:");
  auto sites = loopnest::find_sites(loopnest::lift_source("k.py", local, kRagged));
  std::string after = loopnest::apply_site("k.py", local, kRagged, site_of(sites, "hoist"));
  size_t def = after.find("def kernel");
  EXPECT_LT(after.find("w_tail", def), after.find("for m in", def)) << after;
  EXPECT_EQ(after.find("if tail:", def), after.rfind("if tail:")) << after;
  EXPECT_LT(loopnest_test::rel_error(run(after, kRagged), run(local, kRagged)), 1e-6);
}

// A failing if's else branch a hoist empties (it held only the tail's weight load, the uses under an
// `if rem > 0:` after it) is left out of the printed if, which lifts again as the form reads it.
TEST(DecidedGuard, AnElseBranchAHoistEmptiesIsLeftOut) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("guarded_cols_tail_else") + style);
    text.insert(text.find("            ps_tail = "), "        if rem > 0:\n");
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kRagged));
    std::string after = loopnest::apply_site("k.py", text, kRagged, site_of(sites, "hoist"));
    size_t def = after.find("def kernel");
    EXPECT_EQ(after.find("else:", def), std::string::npos) << after;
    EXPECT_LT(after.find("w_tail", def), after.find("for m in", def)) << after;
    EXPECT_LT(loopnest_test::rel_error(run(after, kRagged), run(text, kRagged)), 1e-6);
    EXPECT_LT(loopnest_test::rel_error(run(after, kEven), run(text, kEven)), 1e-6);
  }
}

// A tail's weight load reading a binding of its guard (`c0 = NT * NB` under `if rem > 0:`) hoists with
// a copy of the binding under the guard's copy (it was refused: a statement naming a binding of the
// loop's body); a binding reading the row (`c0 = NT * NB + m * 0`) is not copied, the load stays.
TEST(DecidedGuard, AStatementNamingItsGuardsBindingHoistsWithACopyOfIt) {
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("guarded_cols_tail") + style);
    auto swap = [](std::string t, const std::string& from, const std::string& to) {
      size_t at = t.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      return at == std::string::npos ? t : t.replace(at, from.size(), to);
    };
    text = swap(text, "        if rem > 0:\n", "        if rem > 0:\n            c0 = NT * NB\n");
    text = std::string(style).empty() ? swap(text, "nl.ds(NT * NB, rem)])", "nl.ds(c0, rem)])")
                                      : swap(text, "src=w[:, NT * NB:N])", "src=w[:, c0:N])");
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, kRagged));
    std::string after = loopnest::apply_site("k.py", text, kRagged, site_of(sites, "hoist"));
    size_t def = after.find("def kernel");
    size_t copy = after.find("if rem > 0:", def), bind = after.find("c0 = NT * NB", def);
    size_t load = after.find("c0", bind + 2), rows = after.find("for m in", def);
    EXPECT_LT(copy, bind) << after;
    EXPECT_LT(bind, load) << after;
    EXPECT_LT(load, rows) << after;
    EXPECT_LT(loopnest_test::rel_error(run(after, kRagged), run(text, kRagged)), 1e-6);
    EXPECT_LT(loopnest_test::rel_error(run(after, kEven), run(text, kEven)), 1e-6);
    std::string per_row = swap(text, "c0 = NT * NB\n", "c0 = NT * NB + m * 0\n");
    for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", per_row, kRagged)))
      EXPECT_NE(s.transform, "hoist") << s.key();
  }
}

// hoist_expand of a ragged tail's rhs tiles out of the row loop (guarded_tail_ktiles{,_api}.py): the
// buffer and its fill print under `if rem > 0:` before `for m`, with the guard's binding `c0 = NT *
// NB` the fill reads copied there (printed as the traced `1024:1280` before), and the printed kernel
// keeps its result at 1280 columns and, the guard failing, at 1024.
TEST(DecidedGuard, AnExpandedTailLoadPrintsUnderItsGuardWithTheGuardsBinding) {
  const auto ragged = arrays({{128, 2, 256}, {128, 2, 1280}}), even = arrays({{128, 2, 256}, {128, 2, 1024}});
  for (const char* style : {"", "_api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel(std::string("guarded_tail_ktiles") + style);
    const loopnest::Site* tail = nullptr;
    auto sites = loopnest::find_sites(loopnest::lift_source("k.py", text, ragged));
    for (const auto& s : sites)
      if (s.transform == "hoist_expand" && s.anchor == "2x2/load#0") tail = &s;
    ASSERT_TRUE(tail);
    std::string after = loopnest::apply_site("k.py", text, ragged, *tail);
    size_t def = after.find("def kernel");
    size_t copy = after.find("if rem > 0:", def), bind = after.find("c0 = NT * NB", def);
    size_t fill = after.find("rhs[:, t, c0:N]", def), rows = after.find("for m in", def);
    ASSERT_NE(fill, std::string::npos) << after;
    EXPECT_LT(copy, bind) << after;
    EXPECT_LT(bind, fill) << after;
    EXPECT_LT(fill, rows) << after;
    EXPECT_EQ(loads_of(after, ragged, 1), 2 * 2 * 2 + 2) << after;  // the full blocks per row tile, the tail once
    EXPECT_LT(loopnest_test::rel_error(run(after, ragged), run(text, ragged)), 1e-5);
    EXPECT_LT(loopnest_test::rel_error(run(after, even), run(text, even)), 1e-5);
  }
}

TEST(DecidedGuard, AGuardWithAnElseOrOnTheLoopVariableStaysAWall) {
  std::string text = kernel("guarded_cols_inner");
  auto replace = [&](std::string s, const std::string& from, const std::string& to) {
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  auto hoists = [](const std::string& t) {
    int n = 0;
    for (const auto& s : loopnest::find_sites(loopnest::lift_source("k.py", t, kEven))) n += s.transform == "hoist_expand";
    return n;
  };
  ASSERT_EQ(hoists(text), 1);
  // A holding if with an else branch written (not taken at these shapes): the load before `for m`
  // would also run where the author chose the other branch.
  std::string with_else = replace(text, "    return out", "        else:\n            nl.store(out[nl.ds(m * 128, 128), 0:1], value=lhsT[0:128, 0:1])\n    return out");
  EXPECT_EQ(hoists(with_else), 0) << with_else;
  // A condition on the row: not decided while tracing, it holds in some iterations only.
  std::string on_row = replace(text, "        if K <= 128:", "        if m < 1:");
  EXPECT_EQ(hoists(on_row), 0) << on_row;
}

}  // namespace
