#include <gtest/gtest.h>

#include <optional>

#include "test_util.h"
#include "tensor/ops.h"

namespace tensor {
namespace {

TEST(Array, ViewsShareTheBuffer) {
  Array a = arange(0, 24, 1, DType::Float32);
  Array r = reshape(a, {2, -1, 4});
  EXPECT_EQ(r.shape(), (Shape{2, 3, 4}));
  EXPECT_TRUE(r.shares_buffer_with(a));
  Array t = transpose(r, {2, 0, 1});
  EXPECT_EQ(t.shape(), (Shape{4, 2, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.get({3, 1, 2}), r.get({1, 2, 3}));
  Array flat = reshape(t, {24});  // non-contiguous -> copy
  EXPECT_FALSE(flat.shares_buffer_with(a));
  EXPECT_EQ(flat.get({1}), 4.0);
  EXPECT_EQ(swapaxes(r, 0, 2).shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(expand_dims(a, -1).shape(), (Shape{24, 1}));
  EXPECT_EQ(squeeze(reshape(a, {1, 24, 1}), {}).shape(), (Shape{24}));
  EXPECT_THROW(reshape(a, {5, -1}), ArrayError);
  EXPECT_THROW(reshape(a, {-1, -1}), ArrayError);
  EXPECT_THROW(transpose(r, {0, 0, 1}), ArrayError);
}

TEST(Array, ConcatenateRepeatAstype) {
  Array a = reshape(arange(0, 6, 1, DType::Float32), {2, 3});
  Array b = reshape(arange(6, 9, 1, DType::Float64), {1, 3});
  Array c = concatenate({a, b}, 0);
  EXPECT_EQ(c.shape(), (Shape{3, 3}));
  EXPECT_EQ(c.dtype(), DType::Float64);
  EXPECT_EQ(c.get({2, 1}), 7.0);
  EXPECT_THROW(concatenate({a, b}, 1), ArrayError);
  Array r = repeat(a, 2, 1);
  EXPECT_EQ(r.shape(), (Shape{2, 6}));
  EXPECT_EQ(r.get({1, 2}), 4.0);
  EXPECT_EQ(r.get({1, 3}), 4.0);
  Array i = astype(Array::from_values({3}, DType::Float32, {-1.7, 2.5, 300}), DType::Int8);
  EXPECT_EQ(i.get({0}), -1);
  EXPECT_EQ(i.get({2}), 44);  // wraps like numpy's C cast
  EXPECT_EQ(astype(Array::from_values({2}, DType::Float32, {0.0, 0.25}), DType::Bool).get({1}), 1);
  Array id = identity(3, DType::Float32);
  EXPECT_EQ(reduce(ReduceOp::Sum, id, {}, false, DType::Float32).item(), 3.0);
}

TEST(Array, AssignBroadcastsAndCasts) {
  Array a = Array::zeros({3, 4}, DType::BFloat16);
  assign(a, Array::from_values({4}, DType::Float64, {1.0, 1.001, 2.0, 3.0}));
  EXPECT_EQ(a.get({2, 1}), 1.0);  // rounded to bf16
  EXPECT_THROW(assign(a, Array::zeros({3}, DType::Float32)), ArrayError);
  // overlapping source and destination
  Array x = arange(0, 5, 1, DType::Float32);
  Array dst = get_index(x, {Slice{1, {}, {}}});
  Array src = get_index(x, {Slice{{}, 4, {}}});
  assign(dst, src);
  EXPECT_EQ(x.get({4}), 3.0);
  EXPECT_EQ(x.get({1}), 0.0);
}

TEST(Array, BudgetThrowsBeforeAllocating) {
  AllocationBudget budget(1 << 20);
  Array a = Array::zeros({128, 512}, DType::Float32);  // 256 KiB
  EXPECT_EQ(budget.used(), 128u * 512 * 4);
  EXPECT_THROW(Array::zeros({1024, 1024}, DType::Float32), BudgetExceeded);
  EXPECT_EQ(budget.used(), 128u * 512 * 4);
  {
    Array b = a.copy();
    EXPECT_EQ(budget.used(), 2u * 128 * 512 * 4);
  }
  EXPECT_EQ(budget.used(), 128u * 512 * 4);
  EXPECT_EQ(budget.peak(), 2u * 128 * 512 * 4);
  Array s = Array::shape_only({1 << 20, 1 << 10}, DType::Float32);  // costs nothing
  EXPECT_EQ(budget.used(), 128u * 512 * 4);
}

TEST(Array, NestedBudgetsAndOutliving) {
  std::optional<Array> kept;
  {
    AllocationBudget outer(1000);
    {
      AllocationBudget inner(100);
      EXPECT_EQ(AllocationBudget::current(), &inner);
      EXPECT_THROW(Array::zeros({20}, DType::Float64), BudgetExceeded);
    }
    EXPECT_EQ(AllocationBudget::current(), &outer);
    kept = Array::zeros({20}, DType::Float64);
  }
  EXPECT_EQ(AllocationBudget::current(), nullptr);
  kept.reset();  // freeing after the budget is gone is safe
}

TEST(Array, BadShapesAreErrors) {
  EXPECT_THROW(Array::zeros({-1, 3}, DType::Float32), ArrayError);
  EXPECT_THROW(Array::zeros({1 << 30, 1 << 30}, DType::Float32), ArrayError);
  EXPECT_THROW(Array::from_values({2}, DType::Float32, {1.0}), ArrayError);
  EXPECT_EQ(Array().item(), 0.0);
}

TEST(Array, RelativeL2) {
  Array ref = Array::from_values({4}, DType::Float32, {3, 0, 0, 4});
  Array out = Array::from_values({4}, DType::Float32, {3, 0, 0, 4.5});
  EXPECT_DOUBLE_EQ(relative_l2(out, ref), 0.1);
  DiffStats d = diff_stats(out, ref);
  EXPECT_DOUBLE_EQ(d.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(d.max_rel, 0.125);
  EXPECT_THROW(relative_l2(out, reshape(ref, {2, 2})), ArrayError);
}

// Large freed buffers are reused for the next array of the same size (no fresh page faults);
// a reused buffer must still honour zeros() and the allocation budget.
TEST(Array, LargeBuffersAreReusedAndZeroed) {
  const Shape shape{3, 1 << 20};  // 12 MiB of float32, above the tile-size cache
  void* first = nullptr;
  {
    Array a = Array::full(shape, DType::Float32, 7.0f);
    first = a.raw();
  }
  Array b = Array::zeros(shape, DType::Float32);
  EXPECT_EQ(b.raw(), first);
  const float* p = b.f32();
  for (int64_t idx = 0; idx < b.size(); idx += 4099) ASSERT_EQ(p[idx], 0.0f) << idx;
  EXPECT_EQ(p[b.size() - 1], 0.0f);
  Array c = Array::empty(shape, DType::Float32);  // b is alive: a different buffer
  EXPECT_NE(c.raw(), b.raw());
  {
    AllocationBudget budget(1 << 20);
    b = Array();
    EXPECT_THROW(Array::zeros(shape, DType::Float32), BudgetExceeded);
  }
}

}  // namespace
}  // namespace tensor
