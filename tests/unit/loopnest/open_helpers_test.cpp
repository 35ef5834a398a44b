// Opening a helper called inside an expression of a statement (src/loopnest/open_helpers.cpp): the
// statement's inner call evaluated before the helper and the helper's result get names, the
// statement reads them, and the helper's work becomes the kernel's own, so a move on the loop
// around it (jam_rows here) is offered with helpers=open. That every such site keeps the kernel's
// result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's
// (tests/kernels/nested_helper_rows.py); the printed kernel is GoldenRewrites'.
#include <gtest/gtest.h>

#include <sstream>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 256}, {2, 128, 1024}});

TEST(OpenHelpers, OpensAHelperCalledInsideAnExpression) {
  std::string path = source_dir() + "/tests/kernels/nested_helper_rows.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, kArgs);
  EXPECT_FALSE(loopnest::helpers_stay_closed(form)) << *loopnest::helpers_stay_closed(form);
  // 2 row tiles x 2 column blocks x 2 K tiles of weight.
  EXPECT_EQ(loads_of(text, kArgs, 1), 8);
  const loopnest::Site* jam = nullptr;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites)
    if (s.transform == "jam_rows" && s.params.at("factor") == "2" && s.params.count("helpers") &&
        !loopnest::overlaps_rows_only(s.transform, s.params))
      jam = &s;
  ASSERT_TRUE(jam) << "no jam_rows site with the helpers opened";
  std::string after = loopnest::apply_site(path, text, kArgs, *jam);
  EXPECT_EQ(loads_of(after, kArgs, 1), 4) << after;
  // The inner call before the helper and the helper's results, named and read by name; the
  // helper is no longer called.
  EXPECT_NE(after.find("inner_result_0 = nl.multiply(acc_0, 2.0)"), std::string::npos) << after;
  EXPECT_NE(after.find("y_1 = nl.add(inner_result_1, gate_result_1)"), std::string::npos) << after;
  std::string body = after.substr(after.find("def kernel"));
  EXPECT_EQ(body.find("_gate("), std::string::npos) << after;
}

TEST(OpenHelpers, OpensAHelperReturningSeveralTilesWithLoadsInItsArguments) {
  const std::vector<loopnest::ArgSpec> args = arrays({{128, 2048}, {64, 2048}, {64, 2048}});
  std::string path = source_dir() + "/tests/kernels/tuple_helper_rows.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  EXPECT_FALSE(loopnest::helpers_stay_closed(form)) << *loopnest::helpers_stay_closed(form);
  const loopnest::Site* fold = nullptr;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites)
    if (s.transform == "fold_rows" && s.params.count("helpers")) fold = &s;
  ASSERT_TRUE(fold) << "no fold_rows site with the helper opened";
  std::string after = loopnest::apply_site(path, text, args, *fold);
  // The argument loads named after their sources, one statement per result of the return, and
  // the helper no longer called.
  EXPECT_NE(after.find("c_tile = nl.load("), std::string::npos) << after;
  EXPECT_NE(after.find("s_tile = nl.load("), std::string::npos) << after;
  EXPECT_NE(after.find("lo2 = nl.subtract("), std::string::npos) << after;
  EXPECT_NE(after.find("hi2 = nl.add("), std::string::npos) << after;
  std::string body = after.substr(after.find("def kernel"));
  EXPECT_EQ(body.find("rotate("), std::string::npos) << after;
}

// A lambda's result (`denom = lambda vv: ...` called as `denom(v_new)` inside an expression) is
// named after it with what Python accepts in a name: `lambda_result`, never `<lambda>_result`.
TEST(OpenHelpers, ALambdasResultGetsANamePythonAccepts) {
  std::string path = source_dir() + "/tests/kernels/corpus/p9_adamw_mgrid_tail.py";
  std::string text = read(path);
  auto args = arrays({{300, 256}, {300, 256}, {300, 256}, {300, 256}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  const loopnest::Site* open = nullptr;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites)
    if (s.params.count("helpers") && !open) open = &s;
  ASSERT_TRUE(open) << "no site with the helpers opened";
  std::string after = loopnest::apply_site(path, text, args, *open);
  EXPECT_NE(after.find("lambda_result = nl.add("), std::string::npos) << after;
  EXPECT_EQ(after.find("<lambda>"), std::string::npos) << after;
}

// A helper whose result already has its own name (`t = nl.load(...); return t`) called inside an
// expression (`xT[k] = nl.copy(nisa.nc_transpose(load_block(x, ...)))`): the statement reads that
// name, and the helper is not called a second time for the value it already computed.
TEST(OpenHelpers, AHelpersOwnResultNameIsReadInPlaceOfTheCall) {
  std::string path = source_dir() + "/tests/kernels/corpus/p9_lora_shape_branches.py";
  std::string text = read(path);
  auto args = arrays({{256, 256}, {256, 512}, {256, 64}, {64, 512}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  int opened = 0;
  for (const auto& s : loopnest::find_sites(form)) {
    if (!s.params.count("helpers")) continue;
    ++opened;
    std::string after = loopnest::apply_site(path, text, args, s);
    std::string body = after.substr(after.find("def lora"));
    // A call the move left alone is the author's call again (reclose_calls.cpp, session 38): every
    // line still calling the helper is a line as written; an opened one reads the name instead.
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);)
      if (line.find("load_block(") != std::string::npos)
        EXPECT_NE(text.find(line + "\n"), std::string::npos) << s.key() << ": " << line << "\n" << after;
    EXPECT_EQ(loads_of(after, args, 0), 4) << s.key() << "\n" << after;
  }
  EXPECT_GE(opened, 3);
}

}  // namespace


namespace {

// A scalar argument between two arrays (`kernel(x, eps, g)`, the NKIBench rmsnorm tasks' order):
// the opened kernel is lifted again with the arguments the task passed, the scalar included, so
// its helpers open. Before, the kernel's own arguments stopped at the first scalar and no site
// inside a helper (nor an opened composite) was offered on such a kernel.
TEST(OpenHelpers, OpensHelpersOfAKernelWithAScalarBetweenItsArrays) {
  const std::string text =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
      "def _normed(t, eps):\n"
      "    ms = nl.mean(nl.square(t), axis=1, keepdims=True)\n"
      "    return nl.multiply(t, nl.rsqrt(nl.add(ms, eps)))\n\n\n"
      "@nki.jit\ndef kernel(x, eps, g):\n"
      "    out = nl.ndarray((256, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    for i in nl.affine_range(2):\n"
      "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
      "        y = nl.multiply(_normed(t, eps), nl.load(g[i * 128:(i + 1) * 128, :]))\n"
      "        nl.store(out[i * 128:(i + 1) * 128, :], value=y)\n"
      "    return out\n";
  std::vector<loopnest::ArgSpec> args = arrays({{256, 512}, {256, 512}});
  loopnest::ArgSpec eps;
  eps.is_array = false;
  eps.dtype = "float";
  eps.scalar = 1e-5;
  args.insert(args.begin() + 1, eps);
  loopnest::Kernel form = loopnest::lift_source("scalar_between.py", text, args);
  auto why = loopnest::helpers_stay_closed(form);
  EXPECT_FALSE(why) << *why;
  const loopnest::Site* opened = nullptr;
  auto sites = loopnest::find_sites(form);
  for (const auto& s : sites)
    if (s.params.count("helpers")) opened = &s;
  ASSERT_TRUE(opened) << "no site with the helper opened";
  std::string after = loopnest::apply_site("scalar_between.py", text, args, *opened);
  EXPECT_NE(after.find("def kernel(x, eps, g):"), std::string::npos) << after;
  EXPECT_EQ(after.substr(after.find("def kernel")).find("_normed("), std::string::npos) << after;
}

}  // namespace

namespace {

// A helper given a Python list built one tile per iteration of an unrolled loop (`chunks.append(t)`
// in `for c in nl.static_range(4)`): the list lifts as one tensor with a block dim over the loop,
// and `len(tiles)` inside the helper is that dim (4), not the one item the lifter holds for it.
// Before, the helper's `for i in nl.static_range(len(tiles))` lifted as one iteration: opened
// into the kernel (any site with helpers=open), it reduced the first chunk only (wrong numbers
// on a held-out attention kernel). Every such site keeping the result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's (the kernel is in the corpus).
TEST(OpenHelpers, AListBuiltOneTilePerIterationHasTheLoopsLength) {
  std::string path = source_dir() + "/tests/kernels/corpus/new_list_helper_len.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("parts = nl.ndarray(shape=(128, 4)"), std::string::npos) << dump;
  EXPECT_NE(dump.find("for i in static_range(4):"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("static_range(1)"), std::string::npos) << dump;
  int opened = 0;
  for (const auto& s : loopnest::find_sites(form))
    if (s.params.count("helpers")) ++opened;
  EXPECT_GE(opened, 3);
}

// Fusing in blocks the loop that builds a list with the next loop leaves the list one block long:
// a later loop reading every tile of it (`chunks[c]` for c up to 4) would index past it, so no such
// site is offered (it was listed, then refused at apply: an evaluation wasted).
TEST(OpenHelpers, NoBlockedFusionOfAListReadAfterThePair) {
  std::string path = source_dir() + "/tests/kernels/corpus/new_list_helper_len.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}});
  loopnest::Kernel form = loopnest::lift_source(path, text, args);
  int blocked = 0;
  for (const auto& s : loopnest::find_sites(form)) {
    if (s.transform != "fuse_nests" || !s.params.count("block")) continue;
    ++blocked;
    EXPECT_NO_THROW(loopnest::apply_site(path, text, args, s)) << s.key();
  }
  EXPECT_GE(blocked, 1);  // the pair whose list is read only by its own iteration is still offered
}

}  // namespace

namespace {

// `w_tiles.append(load_rows(w, r * 128))` in an unrolled loop: the helper's load is that loop's
// statement. Before, the append left the helper's nodes pending and the next statement (in the
// next loop) took them: the form loaded w inside the compute loop and the building loop was empty.
// `outs.append(nl.ndarray(...))` appends the allocation's tile; a helper called in an append's
// argument no longer leaves the list lookup dangling (the second list of an iteration was refused
// as "appended more than once").
TEST(OpenHelpers, AnAppendedHelperResultIsLoadedInTheLoopThatAppendsIt) {
  std::string path = source_dir() + "/tests/kernels/corpus/new_list_append_helper.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, arrays({{256, 512}, {256, 512}}));
  std::string dump = loopnest::dump(form);
  size_t build = dump.find("for r in static_range(2):"), compute = dump.find("for r in affine_range(2):");
  size_t w_load = dump.find("nisa.dma_copy(src=w[");
  ASSERT_NE(build, std::string::npos) << dump;
  ASSERT_NE(compute, std::string::npos) << dump;
  EXPECT_TRUE(build < w_load && w_load < compute) << dump;
  EXPECT_NE(dump.find("list 'outs' over r"), std::string::npos) << dump;
  EXPECT_NE(dump.find("list 'w_tiles' over r"), std::string::npos) << dump;
}

}  // namespace

namespace {

// Opened, `w_tiles.append(load_rows(w, r * 128))` is the helper's statements followed by the
// append of the tile they made: the call statement did the append, so dropping it with the call
// left later reads of `w_tiles[r]` naming a list nothing fills (the printed kernel did not lift,
// so every helpers=open site of such a kernel was lost).
TEST(OpenHelpers, AnOpenedHelperResultIsStillAppendedToItsList) {
  for (const char* name : {"new_list_append_helper", "new_scan_initial_choice"}) {
    std::string path = source_dir() + "/tests/kernels/corpus/" + name + ".py";
    auto args = arrays({{256, 512}, {256, 512}});
    loopnest::Kernel form = loopnest::lift_source(path, read(path), args);
    EXPECT_EQ(loopnest::helpers_stay_closed(form), std::nullopt) << name;
    loopnest::Kernel opened = form;
    ASSERT_GE(loopnest::open_helpers(opened), 1) << name;
    std::string printed = loopnest::emit_checked(opened, args);
    const char* append = name == std::string("new_list_append_helper") ? "w_tiles.append(tile)" : "a_tiles.append(tile)";
    EXPECT_NE(printed.find(append), std::string::npos) << printed;
  }
}

}  // namespace

namespace {

// `start = 0.0 if c == 0 else carry_tiles[r]` (a scan starting from zero in the first chunk and
// from the carried tile after) lifts as the tile operand with the number it gives way to; printed
// from the form it is the same choice. A choice between two tiles lifts as the loop's copies.
TEST(LoopNestLift, ANumberOrTileChosenPerIterationIsOneOperand) {
  std::string path = source_dir() + "/tests/kernels/corpus/new_scan_initial_choice.py";
  auto args = arrays({{256, 512}, {256, 512}});
  loopnest::Kernel form = loopnest::lift_source(path, read(path), args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("initial=(0.0 if "), std::string::npos) << dump;
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("initial=(0.0 if c == 0 else "), std::string::npos) << printed;

  std::string two_tiles = read(path);
  const std::string number_choice = "0.0 if c == 0 else carry_tiles[r]";
  size_t at = two_tiles.rfind(number_choice);  // the statement, not the comment
  ASSERT_NE(at, std::string::npos);
  two_tiles.replace(at, number_choice.size(), "x_t[:, 0:1] if c == 0 else carry_tiles[r]");
  // A choice between two tiles is no operand of one loop: the chunk loop lifts as the copies the
  // trace runs (host values differing per iteration, for_loop), each taking its own tile.
  loopnest::Kernel copies = loopnest::lift_source(path, two_tiles, args);
  EXPECT_NE(loopnest::dump(copies).find("inline for:"), std::string::npos) << loopnest::dump(copies);
  EXPECT_EQ(loopnest::emit(copies), two_tiles);
}

}  // namespace
