// Flattened loops split into their nest (src/loopnest/unflatten.cpp): one loop over every tile,
// indexed by `t // C` and `t % C`, offers the moves of the nest it flattens (tile_size on the column
// loop, interchange, a hoist of a load that depends on one coordinate) with flat_loops=split. That
// every such site keeps the kernel's result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's
// (the three kernels are corpus cases, tests/kernels/corpus/flat_*).
#include <gtest/gtest.h>

#include <algorithm>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

struct Case {
  const char* file;
  std::vector<loopnest::ArgSpec> args;
  std::vector<int64_t> trips;  // the split nest's trips, outermost first
};

std::vector<Case> cases() {
  return {{"flat_silu_slices.py", arrays({{256, 1024}}), {2, 4}},
          {"flat_bias_grid.py", arrays({{2, 256, 512}, {128, 512}}), {2, 2, 4}},
          {"flat_scale_api.py", arrays({{256, 1024}, {256, 1}}), {2, 8}}};
}

std::string path_of(const Case& c) { return source_dir() + "/tests/kernels/corpus/" + c.file; }

// The trips of the loops from the outermost down the first loop of each body.
std::vector<int64_t> nest_trips(const loopnest::Kernel& k) {
  std::vector<int64_t> trips;
  const std::vector<loopnest::Node>* body = &k.body;
  for (;;) {
    auto loop = std::find_if(body->begin(), body->end(), [](const auto& n) { return n.kind == loopnest::NodeKind::Loop; });
    if (loop == body->end()) return trips;
    trips.push_back(k.loops.at(loop->loop).trip().value_or(-1));
    body = &loop->body;
  }
}

TEST(Unflatten, SplitsEachFlattenedLoopIntoTheNestItsDivisionsName) {
  for (const auto& c : cases()) {
    std::string text = read(path_of(c));
    loopnest::Kernel k = loopnest::lift_source(path_of(c), text, c.args);
    ASSERT_GT(loopnest::quasi_affine_terms(k), 0) << c.file;
    EXPECT_EQ(loopnest::unflatten_loops(k), static_cast<int>(c.trips.size()) - 1) << c.file;
    EXPECT_EQ(nest_trips(k), c.trips) << c.file;
    // Every `//` and `%` of the loop variable simplified away over the new loops' ranges.
    EXPECT_EQ(loopnest::quasi_affine_terms(k), 0) << c.file;
  }
}

TEST(Unflatten, TheFlattenedLoopOffersTheNestsMoves) {
  for (const auto& c : cases()) {
    std::string text = read(path_of(c));
    loopnest::Kernel k = loopnest::lift_source(path_of(c), text, c.args);
    std::set<std::string> split_moves;
    for (const auto& s : loopnest::find_sites(k))
      if (s.params.count("flat_loops")) split_moves.insert(s.transform);
    EXPECT_TRUE(split_moves.count("tile_size")) << c.file;
    EXPECT_TRUE(split_moves.count("interchange_loops")) << c.file;
  }
}

TEST(Unflatten, ALoadOfOneCoordinateIsHoistedOutOfTheOthers) {
  const Case c = cases()[1];
  std::string text = read(path_of(c));
  loopnest::Kernel k = loopnest::lift_source(path_of(c), text, c.args);
  const loopnest::Site* hoist = nullptr;
  auto sites = loopnest::find_sites(k);
  for (const auto& s : sites)
    if (s.transform == "hoist_expand" && s.params.count("flat_loops") && s.params.at("out_of") == "2") hoist = &s;
  ASSERT_TRUE(hoist) << "no hoist of the bias load out of the split loops";
  // 16 tiles, each loading its bias block: after the hoist, the 4 column blocks once.
  EXPECT_EQ(loads_of(text, c.args, 1), 16);
  std::string after = loopnest::apply_site(path_of(c), text, c.args, *hoist);
  EXPECT_EQ(loads_of(after, c.args, 1), 4) << after;
  // The statements naming the flattened variable are printed over the split loops, and the
  // bindings computed from it are gone; the rest is as written.
  std::string body = after.substr(after.find("def kernel"));
  EXPECT_EQ(body.find("t // (R * C)"), std::string::npos) << after;
  EXPECT_EQ(body.find("c = t % C"), std::string::npos) << after;
  EXPECT_NE(body.find("y = nl.add(xt, "), std::string::npos) << after;
}

// A loop whose divisions do not split its trip, or that has none, is left as it is.
TEST(Unflatten, LeavesALoopWithoutDivisionsAlone) {
  std::string path = source_dir() + "/tests/kernels/silu.py";
  loopnest::Kernel k = loopnest::lift_source(path, read(path), arrays({{128, 256}}));
  EXPECT_EQ(loopnest::unflatten_loops(k), 0);
}

}  // namespace

namespace {

// A list of offsets in arithmetic progression indexed by a loop variable (`col_offsets[j]`) is an
// affine index, and a slice reaching past the end under a mask lifts (the mask gates it): the
// kernel offers the moves of its nest, among them affine_loop of its `range` loop.
TEST(HostLists, AnOffsetListIndexedByALoopIsAnAffineIndex) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_offset_list_masked.py";
  std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, arrays({{200, 512}}));
  std::set<std::string> moves;
  for (const auto& s : loopnest::find_sites(k)) moves.insert(s.transform);
  EXPECT_TRUE(moves.count("affine_loop"));
  EXPECT_TRUE(moves.count("tile_size"));
  EXPECT_EQ(loopnest::quasi_affine_terms(k), 0);
}

}  // namespace

namespace {

// A list of views of one buffer whose starts step alike (`[buf[:, j * 2 + s, :] for s in range(2)]`)
// indexed by a loop variable is the view at the stepped start: the kernel lifts, the read in the
// helper is `buf[:, 2*j + s, :]`.
TEST(HostLists, AListOfViewsIndexedByALoopIsAView) {
  std::string path = source_dir() + "/tests/kernels/corpus/con_view_list_loop.py";
  loopnest::Kernel k = loopnest::lift_source(path, read(path), arrays({{128, 1024}}));
  bool stepped = false;
  loopnest::for_each_node(k.body, [&](const loopnest::Node& n, const std::vector<int>& loops) {
    for (const auto& op : n.ops)
      for (const auto& a : op.args)
        if (a.value.kind == loopnest::Operand::Kind::Tile && loops.size() == 2 &&
            k.tensor(a.value.access.tensor).name == "buf")
          stepped = a.value.access.dims[1].start == loopnest::IExpr::var(loops[0]) * 2 + loopnest::IExpr::var(loops[1]);
  });
  EXPECT_TRUE(stepped);
}

}  // namespace
