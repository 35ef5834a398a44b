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
