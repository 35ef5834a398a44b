// Symbolic NKI index expressions (nl.arange, nl.mgrid, affine arithmetic with ints and loop
// variables, floor division and modulo by constants) and mask predicates built from comparisons
// of them.
//
// An IndexExpr is c0 + sum(coef * ((j[axis] / div) % mod)) over a broadcast index space of shape
// `shape`: the numpy value of the expression at index j. A term with div == 1 and no mod is
// affine; `i // K` and `i % K` by constants make the quasi-affine terms (digits of an axis).
// Anything else (a product of two aranges, `//` that does not split an axis into digits) is
// rejected with the compiler's error name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "nki/lib/affine_view.h"
#include "nki/value.h"

namespace nki::lib {

// Index-expression shapes stay inline (rank <= 4) like the terms: kernels build several
// expressions per subscript (nl.arange(n)[:, None], `base + arange`).
using IndexShape = SmallVec<int64_t, 4>;

// coef * ((j[axis] / div) % mod): (axis, coefficient) named like the std::pair it replaced,
// plus the digit it reads (div 1, mod 0: j itself). Trivially copyable, so SmallVec copies and
// moves it as raw bytes.
struct IndexTerm {
  int first = 0;        // axis
  int64_t second = 0;   // coefficient
  int64_t div = 1;
  int64_t mod = 0;      // 0: no modulo
  bool affine() const { return div == 1 && mod == 0; }
  bool same_digit(const IndexTerm& o) const { return first == o.first && div == o.div && mod == o.mod; }
  int64_t digit(int64_t j) const { return mod ? (j / div) % mod : j / div; }
};

struct IndexExpr {
  int64_t c0 = 0;
  IndexShape shape;                             // broadcast shape ({} for a constant)
  SmallVec<IndexTerm, 4> terms;                // axes distinct (inline: small_vec.h)

  int ndim() const { return int(shape.size()); }
  bool quasi() const;  // has a floor-division/modulo term
  int64_t value_at(const int64_t* j) const;  // at index j of the broadcast space
  static IndexExpr constant(int64_t v) { IndexExpr e; e.c0 = v; return e; }
  static IndexExpr arange(int64_t start, int64_t stop, int64_t step = 1);
  IndexExpr aligned_to(int ndim) const;  // right-aligned in a space of `ndim` axes (numpy rule)
  IndexExpr scaled(int64_t k) const;
  int64_t coef_on(int axis) const;
  int64_t min_over(const Box& box) const;  // box over this expression's axes
  int64_t max_over(const Box& box) const;
};
IndexExpr add(const IndexExpr& a, const IndexExpr& b);
// e // k and e % k for a constant k > 0, as quasi-affine expressions; an Unsupported error
// (err_unsupported_expression_in_mask) when the result is not a set of digits of the axes.
IndexExpr floor_div(const IndexExpr& e, int64_t k);
IndexExpr modulo(const IndexExpr& e, int64_t k);
// numpy broadcasting of two index shapes: tensor::broadcast_shapes (same error) without allocating.
IndexShape broadcast_index_shapes(const IndexShape& a, const IndexShape& b);

// A conjunction of `expr OP 0` constraints (comparisons normalised to lhs - rhs).
struct Predicate {
  struct Constraint {
    IndexExpr expr;
    CmpOp op;
  };
  std::vector<Constraint> constraints;
  int ndim() const;
};

// How a mask restricts an instruction whose iteration space has shape `shape`: the tightest box
// implied by single-axis constraints, and whether constraints remain that need an element test.
struct MaskRegion {
  Box box;
  std::shared_ptr<const Predicate> residual;  // multi-axis constraints (nullptr if none)
  int space_ndim = 0;
  // Element test of the residual constraints at absolute index j of the iteration space.
  bool holds(const std::vector<int64_t>& j) const;
};
MaskRegion mask_region(const Predicate* pred, const tensor::Shape& shape);

// ---- interpreter values -------------------------------------------------------------------------
struct IndexExprObj : Object {
  static constexpr ObjType kType = ObjType::IndexExpr;
  IndexExpr expr;
  explicit IndexExprObj(IndexExpr e) : expr(std::move(e)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "IndexExpr"; }
  std::string repr() const override;
  bool truthy() const override;  // control flow on an arange is an error
  Value get_item(Interpreter& in, const Value& index) override;  // [:, None] placement
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
  std::optional<Value> unary_op(Interpreter& in, UnOp op) override;
};

struct PredicateObj : Object {
  std::shared_ptr<const Predicate> pred;
  explicit PredicateObj(std::shared_ptr<const Predicate> p) : pred(std::move(p)) {}
  std::string type_name() const override { return "Predicate"; }
  std::string repr() const override { return "<mask predicate>"; }
  bool truthy() const override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
};

// nl.mgrid: subscripting with slices gives one dense grid per sliced dim.
struct MGridObj : Object {
  std::string type_name() const override { return "mgrid"; }
  Value get_item(Interpreter& in, const Value& index) override;
};

// What nl.mgrid[...] returns: a tuple of grids that also answers .p / .x / .y (dims 0, 1, 2).
struct MGridResult : TupleObj {
  explicit MGridResult(std::vector<Value> grids) : TupleObj(std::move(grids)) {}
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
};

// A Value as an affine index expression: ints (and loop variables) or IndexExprObj; nullopt otherwise.
std::optional<IndexExpr> to_index_expr(const Value& v);
// mask= argument: None -> nullptr; a predicate object; a Python bool (True = no mask).
std::shared_ptr<const Predicate> to_predicate(const Value& v, std::string_view api);
Value make_index_expr(IndexExpr e);

}  // namespace nki::lib
