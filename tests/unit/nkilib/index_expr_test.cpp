// Index-expression algebra, mask regions and affine views (no interpreter needed).
#include <gtest/gtest.h>

#include "nki/lib/affine_view.h"
#include "nki/lib/index_expr.h"
#include "nki/lib/nki_tensor.h"

namespace nki::lib {
namespace {

IndexExpr placed(int64_t n, int axis, int ndim) {
  IndexExpr e = IndexExpr::arange(0, n);
  IndexExpr r;
  r.shape.assign(size_t(ndim), 1);
  r.shape[size_t(axis)] = n;
  r.terms = {{axis, 1}};
  return r;
}

TEST(IndexExpr, AffineArithmeticKeepsShapeAndCoefficients) {
  // 128*i + nl.arange(128)[:, None] with i = 3
  IndexExpr e = add(IndexExpr::constant(384), placed(128, 0, 2));
  EXPECT_EQ(e.c0, 384);
  EXPECT_EQ(e.shape, (tensor::Shape{128, 1}));
  EXPECT_EQ(e.coef_on(0), 1);
  // 128*arange(8)[None, :, None] + arange(128)[None, None, :]
  IndexExpr f = add(placed(8, 1, 3).scaled(128), placed(128, 2, 3));
  EXPECT_EQ(f.shape, (tensor::Shape{1, 8, 128}));
  EXPECT_EQ(f.coef_on(1), 128);
  EXPECT_EQ(f.coef_on(2), 1);
  Box box = Box::full(f.shape);
  EXPECT_EQ(f.min_over(box), 0);
  EXPECT_EQ(f.max_over(box), 7 * 128 + 127);
}

TEST(IndexExpr, LowerRankExpressionsAlignRight) {
  IndexExpr a = placed(4, 0, 1);  // 1-D arange
  IndexExpr b = placed(3, 0, 2);  // (3, 1)
  IndexExpr s = add(a, b);
  EXPECT_EQ(s.shape, (tensor::Shape{3, 4}));
  EXPECT_EQ(s.coef_on(1), 1);
  EXPECT_EQ(s.coef_on(0), 1);
}

TEST(MaskRegion, SingleAxisConstraintsTightenTheBox) {
  // -128*i0 - p + 10943 >= 0 with i0 = 85: p <= 63
  Predicate pred;
  IndexExpr e = add(IndexExpr::constant(10943 - 128 * 85), placed(128, 0, 2).scaled(-1));
  pred.constraints.push_back({e, CmpOp::Ge});
  MaskRegion r = mask_region(&pred, {128, 1024});
  EXPECT_EQ(r.box.lo, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(r.box.hi, (std::vector<int64_t>{64, 1024}));
  EXPECT_FALSE(r.residual);
}

TEST(MaskRegion, ConjunctionOfBothAxesAndStrictComparisons) {
  Predicate pred;
  pred.constraints.push_back({add(placed(128, 0, 2), IndexExpr::constant(-64)), CmpOp::Lt});   // p < 64
  pred.constraints.push_back({add(placed(512, 1, 2), IndexExpr::constant(-256)), CmpOp::Lt});  // f < 256
  pred.constraints.push_back({add(placed(512, 1, 2), IndexExpr::constant(-10)), CmpOp::Gt});   // f > 10
  MaskRegion r = mask_region(&pred, {128, 512});
  EXPECT_EQ(r.box.lo, (std::vector<int64_t>{0, 11}));
  EXPECT_EQ(r.box.hi, (std::vector<int64_t>{64, 256}));
}

TEST(MaskRegion, MultiAxisConstraintIsAnElementTest) {
  Predicate pred;  // p >= f (causal)
  pred.constraints.push_back({add(placed(4, 0, 2), placed(4, 1, 2).scaled(-1)), CmpOp::Ge});
  MaskRegion r = mask_region(&pred, {4, 4});
  ASSERT_TRUE(r.residual);
  EXPECT_TRUE(r.holds({2, 1}));
  EXPECT_TRUE(r.holds({2, 2}));
  EXPECT_FALSE(r.holds({1, 2}));
}

TEST(MaskRegion, ConstantFalseConstraintEmptiesTheBox) {
  Predicate pred;
  pred.constraints.push_back({IndexExpr::constant(-1), CmpOp::Ge});
  EXPECT_TRUE(mask_region(&pred, {128, 4}).box.empty());
}

TEST(AffineView, BasicIndexingDropsIntegersAndKeepsSlices) {
  AffineView whole = AffineView::whole({2, 128, 1024});
  auto s = std::make_shared<SliceObj>();
  s->start = Value::from_int(0);
  s->stop = Value::from_int(512);
  AffineView v = index_view(whole, make_tuple({Value::from_int(1), Value(std::make_shared<SliceObj>()), Value(s)}), false);
  EXPECT_EQ(v.shape, (tensor::Shape{128, 512}));
  EXPECT_EQ(v.flat_offset(c_strides({2, 128, 1024}), Box::full(v.shape)), 128 * 1024);
  EXPECT_EQ(v.flat_stride(c_strides({2, 128, 1024}), 0), 1024);
}

TEST(AffineView, AdvancedIndexingBuildsAStridedView) {
  // v1[nl.arange(128)[:, None], i0, nl.arange(1024)[None, :] + 1024*i1] on (128, 32, 7168), i0=5, i1=2
  AffineView whole = AffineView::whole({128, 32, 7168});
  Value p = make_index_expr(placed(128, 0, 2));
  Value f = make_index_expr(add(placed(1024, 1, 2), IndexExpr::constant(2048)));
  AffineView v = index_view(whole, make_tuple({p, Value::from_int(5), f}), false);
  EXPECT_EQ(v.shape, (tensor::Shape{128, 1024}));
  tensor::Strides st = c_strides({128, 32, 7168});
  EXPECT_EQ(v.flat_offset(st, Box::full(v.shape)), 5 * 7168 + 2048);
  EXPECT_EQ(v.flat_stride(st, 0), 32 * 7168);
  EXPECT_EQ(v.flat_stride(st, 1), 1);
  EXPECT_NO_THROW(v.check_bounds({128, 32, 7168}, Box::full(v.shape), "nl.load"));
}

TEST(AffineView, OutOfBoundsOnlyOutsideTheMaskBox) {
  AffineView whole = AffineView::whole({10944, 1024});
  Value p = make_index_expr(add(placed(128, 0, 2), IndexExpr::constant(128 * 85)));
  Value f = make_index_expr(placed(1024, 1, 2));
  AffineView v = index_view(whole, make_tuple({p, f}), false);
  EXPECT_THROW(v.check_bounds({10944, 1024}, Box::full(v.shape), "nl.load"), NkiError);
  Box masked{{0, 0}, {64, 1024}};
  EXPECT_NO_THROW(v.check_bounds({10944, 1024}, masked, "nl.load"));
}

TEST(AffineView, MixingSlicesAndArangeIsRejected) {
  AffineView whole = AffineView::whole({128, 512});
  Value p = make_index_expr(placed(128, 0, 2));
  try {
    index_view(whole, make_tuple({p, Value(std::make_shared<SliceObj>())}), true);
    FAIL() << "expected a Rule error";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Rule);
    EXPECT_NE(e.diag.message.find("err_unsupported_mixing_basic_advanced_tensor_indexing"), std::string::npos);
  }
}

TEST(AffineView, BareOneDimensionalArangeOnChipIsRejected) {
  AffineView whole = AffineView::whole({128, 512});
  Value p = make_index_expr(IndexExpr::arange(0, 64));
  EXPECT_THROW(index_view(whole, p, true), NkiError);
  EXPECT_NO_THROW(index_view(whole, p, false));  // a 1-D HBM index is fine
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// Value of `e` at every index of a 1-D space, by brute force.
std::vector<int64_t> values_1d(const IndexExpr& e, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t j = 0; j < n; ++j) out.push_back(e.value_at(&j));
  return out;
}

TEST(QuasiAffine, FloorDivAndModSplitAnAxisIntoDigits) {
  IndexExpr j = placed(512, 0, 1);
  IndexExpr q = floor_div(j, 128), r = modulo(j, 128);
  EXPECT_TRUE(q.quasi());
  EXPECT_TRUE(r.quasi());
  for (int64_t i = 0; i < 512; ++i) {
    EXPECT_EQ(q.value_at(&i), i / 128);
    EXPECT_EQ(r.value_at(&i), i % 128);
  }
  // Nested digits, coefficients and offsets: (2j + 1) // 4, (j // 8) % 4, (256 + j) % 128 (a
  // loop offset 128 * i0 + j).
  IndexExpr a = floor_div(add(j.scaled(2), IndexExpr::constant(1)), 4);
  IndexExpr b = modulo(floor_div(j, 8), 4);
  IndexExpr c = modulo(add(j, IndexExpr::constant(256)), 128);
  std::vector<int64_t> va = values_1d(a, 512), vb = values_1d(b, 512), vc = values_1d(c, 512);
  for (int64_t i = 0; i < 512; ++i) {
    EXPECT_EQ(va[size_t(i)], (2 * i + 1) / 4);
    EXPECT_EQ(vb[size_t(i)], (i / 8) % 4);
    EXPECT_EQ(vc[size_t(i)], (i + 256) % 128);
  }
  // An expression already below the divisor is its own remainder (no digit needed).
  IndexExpr small = placed(4, 0, 1);
  EXPECT_FALSE(modulo(small, 8).quasi());
  EXPECT_TRUE(floor_div(small, 8).terms.empty());
}

TEST(QuasiAffine, NotDigitsIsAnError) {
  IndexExpr j = placed(8, 0, 1);
  // 3j // 4 is not a digit of j; (j + 3) % 2 wraps around inside a digit.
  for (const IndexExpr& bad : {j.scaled(3), add(j, IndexExpr::constant(3))}) {
    try {
      if (bad.c0) modulo(bad, 2);
      else floor_div(bad, 4);
      FAIL() << "expected an error";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, ErrorKind::Unsupported);
      EXPECT_NE(e.diag.message.find("err_unsupported_expression_in_mask"), std::string::npos);
    }
  }
}

TEST(QuasiAffine, ViewsOverDigitsMergeBackToTheViewShape) {
  // x[i_p, i_f // 128, i_f % 128] on a (128, 4, 128) tensor: a (128, 512) view whose second axis
  // is the digits (4, 128) of the storage's last two dims.
  AffineView v;
  v.shape = {128, 512};
  v.base = {0, 0, 0};
  v.coef = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  v.digits = {128, 4, 128};
  v.parts = {1, 2};
  EXPECT_EQ(v.axes(), 3);
  EXPECT_EQ(v.first_internal(1), 1);
  Box ib;
  ASSERT_TRUE(v.internal_box(Box::full({128, 512}), ib));
  EXPECT_EQ(ib.shape(), (tensor::Shape{128, 4, 128}));
  // Columns 128..383 are digits 1..2 of the high part, all of the low part.
  Box cols{{0, 128}, {128, 384}};
  ASSERT_TRUE(v.internal_box(cols, ib));
  EXPECT_EQ(ib.lo, (Box::Coords{0, 1, 0}));
  EXPECT_EQ(ib.hi, (Box::Coords{128, 3, 128}));
  // Columns 100..200 cross a digit boundary unaligned: no exact box, a covering one.
  EXPECT_FALSE(v.internal_box(Box{{0, 100}, {128, 200}}, ib));
  Box cover = v.covering_box(Box{{0, 100}, {128, 200}});
  EXPECT_EQ(cover.lo, (Box::Coords{0, 0, 0}));
  EXPECT_EQ(cover.hi, (Box::Coords{128, 2, 128}));
  v.check_bounds({128, 4, 128}, Box::full({128, 512}), "test");
  EXPECT_THROW(v.check_bounds({128, 3, 128}, Box::full({128, 512}), "test"), NkiError);
}

}  // namespace
}  // namespace nki::lib
