#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "test_util.h"
#include "tensor/ops.h"

namespace tensor {
namespace {

using testing::NumpyOracle;

// Random numpy subscripts (ints, slices with negative bounds/steps, None, ..., integer and bool
// arrays) rendered both as IndexItems and as Python source.
struct IndexCase {
  std::vector<IndexItem> items;
  std::string python;
};

IndexCase random_index(std::mt19937& rng, NumpyOracle& np, const Shape& shape, bool allow_2d_arrays) {
  IndexCase c;
  int dim = 0;
  bool ellipsis = false;
  std::vector<std::string> parts;
  int n_items = 1 + rng() % (shape.size() + 1);
  for (int item_idx = 0; item_idx < n_items && dim < int(shape.size()); ++item_idx) {
    int64_t len = shape[dim];
    switch (rng() % 7) {
      case 0: {
        int64_t i = int64_t(rng() % (2 * len)) - len;
        c.items.push_back(i);
        parts.push_back(std::to_string(i));
        ++dim;
        break;
      }
      case 1:
      case 2: {
        Slice s;
        auto bound = [&]() -> std::optional<int64_t> {
          if (rng() % 3 == 0) return std::nullopt;
          return int64_t(rng() % (2 * len + 3)) - len - 1;
        };
        s.start = bound();
        s.stop = bound();
        if (rng() % 2) s.step = (rng() % 2 ? 1 : -1) * int64_t(1 + rng() % 3);
        auto str = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string(); };
        c.items.push_back(s);
        parts.push_back(str(s.start) + ":" + str(s.stop) + (s.step ? ":" + str(s.step) : ""));
        ++dim;
        break;
      }
      case 3:
        c.items.push_back(NewAxis{});
        parts.push_back("None");
        break;
      case 4:
        if (ellipsis) break;
        ellipsis = true;
        c.items.push_back(EllipsisIndex{});
        parts.push_back("...");
        dim = std::max<int>(dim, int(shape.size()) - (n_items - item_idx - 1));
        break;
      case 5: {  // integer array with distinct values (so scatters have no duplicates)
        std::vector<double> perm(len);
        std::iota(perm.begin(), perm.end(), 0.0);
        std::shuffle(perm.begin(), perm.end(), rng);
        int64_t n = 1 + rng() % len;
        perm.resize(n);
        for (double& v : perm)
          if (rng() % 2) v -= double(len);  // negative indices
        Shape s = {n};
        if (rng() % 3 == 0) s = {n, 1};
        if (allow_2d_arrays && n % 2 == 0 && rng() % 3 == 0) s = {2, n / 2};
        Array arr = Array::from_values(s, DType::Int64, perm);
        c.items.push_back(arr);
        parts.push_back(np.input(arr));
        ++dim;
        break;
      }
      default: {  // boolean mask over one dimension
        std::vector<double> mask(len);
        for (double& v : mask) v = rng() % 2;
        Array arr = Array::from_values({len}, DType::Bool, mask);
        c.items.push_back(arr);
        parts.push_back(np.input(arr));
        ++dim;
      }
    }
  }
  for (size_t k = 0; k < parts.size(); ++k) c.python += (k ? ", " : "") + parts[k];
  c.python += ",";
  return c;
}

TEST(Index, GetMatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(17);
  NumpyOracle np;
  std::vector<std::pair<Array, IndexCase>> runs;
  for (int case_idx = 0; case_idx < 400; ++case_idx) {
    Shape s = testing::random_shape(rng, 4, 6);
    if (s.empty()) s = {5};
    Array a = testing::random_array(rng, s, case_idx % 2 ? DType::Float32 : DType::Int32);
    if (case_idx % 5 == 0) a = transpose(a, {});  // non-contiguous source
    IndexCase c = random_index(rng, np, a.shape(), true);
    np.expect(np.input(a) + "[" + c.python + "]");
    runs.push_back({a, c});
  }
  auto results = np.run();
  int checked = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    const auto& [a, c] = runs[k];
    if (!results[k].value) {
      EXPECT_THROW(get_index(a, c.items), ArrayError) << c.python << " numpy: " << results[k].error;
      continue;
    }
    Array got = get_index(a, c.items);
    EXPECT_TRUE(testing::bit_equal(got, *results[k].value))
        << "a" << shape_str(a.shape()) << "[" << c.python << "] -> " << shape_str(got.shape()) << " vs "
        << shape_str(results[k].value->shape());
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(Index, SetMatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(23);
  NumpyOracle np;
  struct Run {
    Array a;
    IndexCase c;
    Array value;
  };
  std::vector<Run> runs;
  for (int case_idx = 0; case_idx < 300; ++case_idx) {
    Shape s = testing::random_shape(rng, 4, 6);
    if (s.empty()) s = {5};
    Array a = testing::random_array(rng, s, DType::Float32);
    IndexCase c = random_index(rng, np, a.shape(), false);
    Shape target;
    try {
      target = get_index(a, c.items).shape();
    } catch (const ArrayError&) {
      continue;
    }
    Array value = testing::random_array(rng, testing::broadcastable_with(rng, target), case_idx % 3 ? DType::Float64 : DType::Int32);
    np.prelude("def assigned(a, f):\n    f(a)\n    return a");
    np.expect("assigned(" + np.input(a) + ", lambda b: b.__setitem__(np.s_[" + c.python + "], " + np.input(value) + "))");
    runs.push_back({a, c, value});
  }
  auto results = np.run();
  for (size_t k = 0; k < runs.size(); ++k) {
    ASSERT_TRUE(results[k].value) << runs[k].c.python << ": " << results[k].error;
    Array a = runs[k].a.copy();
    set_index(a, runs[k].c.items, runs[k].value);
    EXPECT_TRUE(testing::bit_equal(a, *results[k].value)) << "[" << runs[k].c.python << "] = " << shape_str(runs[k].value.shape());
  }
}

TEST(Index, BasicIndexingIsAView) {
  Array a = Array::zeros({4, 6}, DType::Float32);
  Array v = get_index(a, {Slice{1, 3, {}}, Slice{{}, {}, 2}});
  EXPECT_TRUE(v.shares_buffer_with(a));
  fill(v, 5.0);
  EXPECT_EQ(a.get({1, 0}), 5.0);
  EXPECT_EQ(a.get({1, 1}), 0.0);
  EXPECT_EQ(a.get({3, 0}), 0.0);
}

// The NKI load pattern: a[base + arange(128)[:, None], arange(512)[None, :]] is a strided copy.
TEST(Index, ArangeGridIsStridedAndFast) {
  Array a = Array::zeros({1024, 2048}, DType::Float32);
  for (int64_t row = 0; row < 1024; row += 100) a.set({row, 7}, double(row));
  Array rows = reshape(arange(256, 384, 1, DType::Int32), {128, 1});
  Array cols = reshape(arange(0, 512, 1, DType::Int32), {1, 512});
  Array tile = get_index(a, {rows, cols});
  EXPECT_EQ(tile.shape(), (Shape{128, 512}));
  EXPECT_FALSE(tile.shares_buffer_with(a));
  EXPECT_EQ(tile.get({300 - 256, 7}), 300.0);
  Array ones = Array::full({128, 512}, DType::Float32, 1.0);
  set_index(a, {rows, cols}, ones);
  EXPECT_EQ(a.get({256, 0}), 1.0);
  EXPECT_EQ(a.get({255, 0}), 0.0);
  EXPECT_EQ(a.get({383, 511}), 1.0);
  EXPECT_EQ(a.get({383, 512}), 0.0);
}

TEST(Index, ErrorsAreArrayErrors) {
  Array a = Array::zeros({3, 4}, DType::Float32);
  EXPECT_THROW(get_index(a, {int64_t{3}}), ArrayError);
  EXPECT_THROW(get_index(a, {int64_t{0}, int64_t{0}, int64_t{0}}), ArrayError);
  EXPECT_THROW(get_index(a, {EllipsisIndex{}, EllipsisIndex{}}), ArrayError);
  EXPECT_THROW(get_index(a, {Slice{{}, {}, 0}}), ArrayError);
  EXPECT_THROW(get_index(a, {Array::from_values({2}, DType::Int64, {0, 5})}), ArrayError);
  EXPECT_THROW(get_index(a, {Array::from_values({2}, DType::Float32, {0, 1})}), ArrayError);
  EXPECT_THROW(set_index(a, {Slice{}}, Array::zeros({2}, DType::Float32)), ArrayError);
}

TEST(Index, ShapeOnlySource) {
  Array a = Array::shape_only({4096, 1024}, DType::Float32);
  Array rows = reshape(arange(0, 128, 1, DType::Int32), {128, 1});
  Array t = get_index(a, {rows, Slice{0, 512, {}}});
  EXPECT_FALSE(t.has_data());
  EXPECT_EQ(t.shape(), (Shape{128, 1, 512}));  // numpy: the advanced (128, 1) block, then the slice
  set_index(a, {rows, Slice{0, 512, {}}}, Array::shape_only({128, 1, 512}, DType::Float32));
  EXPECT_THROW(set_index(a, {rows, Slice{0, 512, {}}}, Array::shape_only({3, 512}, DType::Float32)), ArrayError);
}

}  // namespace
}  // namespace tensor
