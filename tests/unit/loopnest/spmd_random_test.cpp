// Kernels launched on an SPMD grid and kernels drawing random numbers in the loop-nest form: a
// wrapper whose only tile work is one launch lifts as the launched function with its program ids
// as the loops of the grid (Kernel::grid), printed back in the launched function with the wrapper
// and the launch as written; the random-number generator is an ordered effect no move reorders;
// nl.expand_dims is a view.
#include <gtest/gtest.h>

#include "../nkilib/kernel_harness.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

std::vector<loopnest::ArgSpec> arrays(std::vector<std::vector<int64_t>> shapes) {
  std::vector<loopnest::ArgSpec> out;
  for (auto& s : shapes) {
    loopnest::ArgSpec a;
    a.shape = s;
    out.push_back(a);
  }
  return out;
}

std::vector<double> values(const tensor::Array& a) {
  std::vector<double> v;
  std::vector<int64_t> idx(a.shape().size(), 0);
  for (int64_t e = 0; e < tensor::num_elements(a.shape()); ++e) {
    v.push_back(a.get(idx));
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0 && ++idx[d] == a.shape()[d]; --d) idx[d] = 0;
  }
  return v;
}

// A 2 x 4 launch reading its program ids and grid sizes by keyword (`axis=`, `axes=`).
const char* kLaunchByKeyword = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def tiles(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    r = x.shape[0] // nl.num_programs(axes=0)
    c = x.shape[1] // nl.num_programs(axes=1)
    r0 = nl.program_id(axis=0) * r
    c0 = nl.program_id(axis=1) * c
    t = nl.load(x[r0:r0 + r, c0:c0 + c])
    nl.store(out[r0:r0 + r, c0:c0 + c], value=nl.multiply(t, 2.0))
    return out


def kernel(x):
    return tiles[2, 4](x)
)";

TEST(LoopNestSpmd, ALaunchedKernelIsTheFormWithTheGridAsItsOutermostLoops) {
  auto k = loopnest::lift_source("launch.py", kLaunchByKeyword, arrays({{256, 512}}));
  EXPECT_EQ(k.name, "tiles");
  ASSERT_EQ(k.grid.size(), 2u);
  EXPECT_EQ(k.loops.at(k.grid[0]).trip(), 2);
  EXPECT_EQ(k.loops.at(k.grid[1]).trip(), 4);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("kernel tiles(x: hbm float32[256, 512])\n"), std::string::npos) << d;
  EXPECT_NE(d.find("for program_id_0 in affine_range(2):\n  for program_id_1 in affine_range(4):\n"), std::string::npos) << d;
  // nl.program_id(axis=1) is the second axis, nl.num_programs(axes=1) its extent (512 / 4 columns).
  EXPECT_NE(d.find("t = nl.load(src=x[128*program_id_0 + a0[128], 128*program_id_1 + a1[128]])"), std::string::npos) << d;
  EXPECT_NE(d.find("    return out\n"), std::string::npos) << d;
  // The body is the form's top level: no loop node a move could reorder, fuse or hoist out of.
  for (const auto& n : k.body) EXPECT_NE(n.kind, loopnest::NodeKind::Loop);
}

// The program ids the author binds to a name (`row = nl.program_id(0)`) name the program loops, as
// the opened launch prints them; one whose name a loop of the body also has keeps `program_id_N`.
TEST(LoopNestSpmd, AProgramLoopTakesTheNameItsIdIsBoundTo) {
  std::string src = kLaunchByKeyword;
  auto replace = [&](const std::string& from, const std::string& to) { src.replace(src.find(from), from.size(), to); };
  replace("    r0 = nl.program_id(axis=0) * r\n", "    row = nl.program_id(axis=0)\n    r0 = row * r\n");
  replace("    c0 = nl.program_id(axis=1) * c\n", "    i = nl.program_id(axis=1)\n    c0 = i * c\n");
  replace("    t = nl.load(", "    for i in nl.affine_range(1):\n        pass\n    t = nl.load(");
  auto k = loopnest::lift_source("launch.py", src, arrays({{256, 512}}));
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("for row in affine_range(2):\n  for program_id_1 in affine_range(4):\n"), std::string::npos) << d;
  EXPECT_NE(d.find("t = nl.load(src=x[128*row + a0[128], 128*program_id_1 + a1[128]])"), std::string::npos) << d;
}

TEST(LoopNestSpmd, TheBodyPrintsBackInTheLaunchedFunctionWithTheWrapperAsWritten) {
  auto args = arrays({{256, 512}});
  auto k = loopnest::lift_source("launch.py", kLaunchByKeyword, args);
  EXPECT_EQ(loopnest::emit(k), kLaunchByKeyword);
  // Every operation printed from the form: a program id reads as the call that gives it.
  std::string again = loopnest::emit_checked(k, args, {.regenerate = true});
  EXPECT_NE(again.find("x[128*nl.program_id(0):128*nl.program_id(0) + 128, 128*nl.program_id(1):128*nl.program_id(1) + 128]"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find("def kernel(x):\n    return tiles[2, 4](x)\n"), std::string::npos) << again;
  // ... and computes what the kernel computes.
  nki::lib::testing::Harness h;
  auto x = nki::lib::testing::test_input(tensor::Shape{256, 512}, 1);
  auto want = h.run_module(*h.load_text("launch.py", kLaunchByKeyword), {x});
  auto got = h.run_module(*h.load_text("launch.py", again), {x});
  ASSERT_EQ(got.outputs.size(), 1u);
  EXPECT_EQ(values(got.outputs[0]), values(want.outputs[0]));
}

// The wrapper names the tensor it passes otherwise than the launched function's parameter: printed
// from the form, the launched function's body names it by its parameter.
TEST(LoopNestSpmd, ATensorTheLaunchPassesHasTheLaunchedFunctionsName) {
  std::string renamed = kLaunchByKeyword;
  renamed.replace(renamed.find("def kernel(x):\n    return tiles[2, 4](x)"), std::string::npos,
                  "def kernel(a):\n    return tiles[2, 4](a)\n");
  auto args = arrays({{256, 512}});
  auto k = loopnest::lift_source("renamed.py", renamed, args);
  EXPECT_NE(loopnest::dump(k).find("kernel tiles(a: hbm float32[256, 512])\n"), std::string::npos);
  std::string again = loopnest::emit_checked(k, args, {.regenerate = true});
  EXPECT_NE(again.find("t = nl.load(x[128*nl.program_id(0)"), std::string::npos) << again;
  nki::lib::testing::Harness h;
  auto x = nki::lib::testing::test_input(tensor::Shape{256, 512}, 1);
  EXPECT_EQ(values(h.run_module(*h.load_text("renamed.py", again), {x}).outputs.at(0)),
            values(h.run_module(*h.load_text("renamed.py", renamed), {x}).outputs.at(0)));
}

// A wrapper launching two kernels has tile work beside either launch: it stays the form, each
// launch one helper node printed as the call.
TEST(LoopNestSpmd, AWrapperLaunchingTwoKernelsStaysTheForm) {
  std::string two = kLaunchByKeyword;
  two.replace(two.find("    return tiles[2, 4](x)"), std::string::npos, "    a = tiles[2, 4](x)\n    b = tiles[4, 2](x)\n    return a, b\n");
  auto k = loopnest::lift_source("two.py", two, arrays({{256, 512}}));
  EXPECT_EQ(k.name, "kernel");
  EXPECT_TRUE(k.grid.empty());
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("inline tiles:\n  for program_id_0 in affine_range(2):"), std::string::npos) << d;
}

// The same nest drawing its tile from the generator rather than loading it: interchanging the two
// loops would hand each tile other numbers, so the loops are sequential and the draw is frozen.
std::string nest(const char* tile) {
  return std::string(R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((256, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.random_seed(seed=3)
    for i in nl.affine_range(2):
        for j in nl.affine_range(2):
            t = )") + tile + R"(
            nl.store(out[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512], value=nl.multiply(t, 2.0))
    return out
)";
}

std::set<std::string> transforms_offered(const std::string& text) {
  std::set<std::string> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source("nest.py", text, arrays({{256, 1024}}))))
    out.insert(s.transform);
  return out;
}

TEST(LoopNestRandom, NoMoveReordersTheDrawsOfTheGenerator) {
  auto loaded = transforms_offered(nest("nl.load(x[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512])"));
  auto drawn = transforms_offered(nest("nl.rand((128, 512))"));
  EXPECT_TRUE(loaded.count("interchange_loops"));
  EXPECT_FALSE(drawn.count("interchange_loops"));
  EXPECT_FALSE(drawn.count("tile_size"));
  // What does not move a draw is still offered: the multiply on another engine.
  EXPECT_TRUE(drawn.count("engine_assign"));
  std::string d = loopnest::dump(loopnest::lift_source("nest.py", nest("nl.rand((128, 512))"), arrays({{256, 1024}})));
  EXPECT_NE(d.find("nl.random_seed(seed=3)\nfor i in sequential_range(2):\n  for j in sequential_range(2):\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("tensor t: sbuf float32[128, 512] buffer per j\n"), std::string::npos) << d;
  EXPECT_NE(d.find("    t = nl.rand() @dve\n"), std::string::npos) << d;
}

// nl.expand_dims of a reduced column is a view of it with a unit axis: `x - expand_dims(max(x))`
// broadcasts a (128, 1) tile.
TEST(LoopNestViews, ExpandDimsIsAViewWithAUnitAxis) {
  const char* text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    m = nl.expand_dims(nl.max(t, axis=1), 1)
    nl.store(out, value=nl.subtract(t, m))
    return out
)";
  auto args = arrays({{128, 512}});
  auto k = loopnest::lift_source("expand.py", text, args);
  std::string d = loopnest::dump(k);
  EXPECT_NE(d.find("tensor m: sbuf float32[128] value\n"), std::string::npos) << d;
  EXPECT_NE(d.find("%1 = nl.subtract(x=t, y=m) @dve\n"), std::string::npos) << d;
  // The subtract reads m as a (128, 1) tile: the view's unit axis is the access's second axis.
  bool seen = false;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (op.api != "nl.subtract") continue;
      const loopnest::Arg* y = op.arg("y");
      ASSERT_TRUE(y && y->value.kind == loopnest::Operand::Kind::Tile);
      EXPECT_EQ(y->value.access.tile_shape(), (std::vector<loopnest::IExpr>{128, 1}));
      seen = true;
    }
  });
  EXPECT_TRUE(seen);
  std::string again = loopnest::emit_checked(k, args, {.regenerate = true});
  nki::lib::testing::Harness h;
  auto x = nki::lib::testing::test_input(tensor::Shape{128, 512}, 1);
  EXPECT_EQ(values(h.run_module(*h.load_text("expand.py", again), {x}).outputs.at(0)),
            values(h.run_module(*h.load_text("expand.py", text), {x}).outputs.at(0)));
}

}  // namespace
