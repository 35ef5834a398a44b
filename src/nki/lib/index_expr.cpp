#include "nki/lib/index_expr.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "tensor/broadcast.h"
#include "tensor/ops.h"

namespace nki::lib {

// ---- IndexExpr algebra -----------------------------------------------------------------------------
IndexExpr IndexExpr::arange(int64_t start, int64_t stop, int64_t step) {
  if (step == 0) throw NkiError(ErrorKind::Value, "nl.arange step must not be zero");
  int64_t n = 0;
  if (step > 0 && stop > start) n = (stop - start + step - 1) / step;
  if (step < 0 && stop < start) n = (start - stop - step - 1) / -step;
  IndexExpr e;
  e.c0 = start;
  e.shape = {n};
  e.terms = {{0, step}};
  return e;
}

IndexExpr IndexExpr::aligned_to(int n) const {
  IndexExpr e = *this;
  int shift = n - ndim();
  if (shift <= 0) return e;
  e.shape.insert(e.shape.begin(), size_t(shift), 1);
  for (auto& t : e.terms) t.first += shift;
  return e;
}

IndexExpr IndexExpr::scaled(int64_t k) const {
  IndexExpr e = *this;
  e.c0 *= k;
  for (auto& t : e.terms) t.second *= k;
  if (k == 0) e.terms.clear();
  return e;
}

int64_t IndexExpr::coef_on(int axis) const {
  for (auto& t : terms)
    if (t.first == axis && t.affine()) return t.second;
  return 0;
}

bool IndexExpr::quasi() const {
  for (auto& t : terms)
    if (!t.affine()) return true;
  return false;
}

int64_t IndexExpr::value_at(const int64_t* j) const {
  int64_t v = c0;
  for (auto& t : terms) v += t.second * (t.affine() ? j[t.first] : t.digit(j[t.first]));
  return v;
}

namespace {

// The digit a term reads, over indices [lo, hi) of its axis: [min, max] (exact for affine terms
// and for digits without wrap-around; otherwise the digit's whole range).
std::pair<int64_t, int64_t> digit_range(const IndexTerm& t, int64_t lo, int64_t hi) {
  int64_t a = lo / t.div, b = (hi - 1) / t.div;
  if (t.mod && b - a >= t.mod) return {0, t.mod - 1};
  if (t.mod && a % t.mod > b % t.mod) return {0, t.mod - 1};
  return t.mod ? std::pair{a % t.mod, b % t.mod} : std::pair{a, b};
}

}  // namespace

int64_t IndexExpr::min_over(const Box& box) const {
  int64_t v = c0;
  for (auto& t : terms) {
    auto [lo, hi] = digit_range(t, box.lo[t.first], box.hi[t.first]);
    v += t.second > 0 ? t.second * lo : t.second * hi;
  }
  return v;
}

int64_t IndexExpr::max_over(const Box& box) const {
  int64_t v = c0;
  for (auto& t : terms) {
    auto [lo, hi] = digit_range(t, box.lo[t.first], box.hi[t.first]);
    v += t.second > 0 ? t.second * hi : t.second * lo;
  }
  return v;
}

IndexExpr add(const IndexExpr& a0, const IndexExpr& b0) {
  // Fast path for `expr + constant` (e.g. `128 * k + nl.arange(128)[:, None]`): the general
  // path below copies both operands to align them; a constant aligns to anything unchanged.
  for (int side = 0; side < 2; ++side) {
    const IndexExpr& c = side ? a0 : b0;
    if (c.ndim() != 0 || !c.terms.empty()) continue;
    IndexExpr r = side ? b0 : a0;
    r.c0 += c.c0;
    erase_if(r.terms, [](auto& t) { return t.second == 0; });
    return r;
  }
  int n = std::max(a0.ndim(), b0.ndim());
  IndexExpr a = a0.aligned_to(n), b = b0.aligned_to(n);
  IndexExpr r;
  r.c0 = a.c0 + b.c0;
  r.shape = broadcast_index_shapes(a.shape, b.shape);
  r.terms = a.terms;
  for (auto& t : b.terms) {
    auto it = std::find_if(r.terms.begin(), r.terms.end(), [&](auto& u) { return u.same_digit(t); });
    if (it == r.terms.end()) r.terms.push_back(t);
    else it->second += t.second;
  }
  erase_if(r.terms, [](auto& t) { return t.second == 0; });
  return r;
}

// ---- floor division and modulo by constants -------------------------------------------------------
namespace {

int64_t floor_div64(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

[[noreturn]] void not_quasi_affine(const char* op, int64_t k) {
  throw NkiError(ErrorKind::Unsupported,
                 fmt::format("err_unsupported_expression_in_mask: '{} {}' on this nl.arange index expression does "
                             "not split its axes into digits (the coefficients must divide {} and the axis extents "
                             "must be multiples of the digit sizes)", op, k, k));
}

// e = k * q + r with 0 <= r < k over the whole index space, q and r quasi-affine.
std::pair<IndexExpr, IndexExpr> split_by(const IndexExpr& e, int64_t k, const char* op) {
  if (k <= 0) throw NkiError(ErrorKind::Value, fmt::format("'{}' of an index expression by {}: the divisor must be a positive integer", op, k));
  IndexExpr q, r;
  q.shape = r.shape = e.shape;
  q.c0 = floor_div64(e.c0, k);
  r.c0 = e.c0 - k * q.c0;
  auto extent = [&](const IndexTerm& t) { return e.shape[size_t(t.first)]; };
  for (const IndexTerm& t : e.terms) {
    if ((t.first < int(e.shape.size()) && (extent(t) - 1) / t.div == 0) || t.second == 0) continue;  // always 0
    if (t.second % k == 0) q.terms.push_back({t.first, t.second / k, t.div, t.mod});
    else r.terms.push_back(t);
  }
  for (;;) {
    int64_t lo = r.c0, hi = r.c0;
    for (const IndexTerm& t : r.terms) {
      auto [dlo, dhi] = digit_range(t, 0, extent(t));
      lo += t.second > 0 ? t.second * dlo : t.second * dhi;
      hi += t.second > 0 ? t.second * dhi : t.second * dlo;
    }
    if (lo >= 0 && hi < k) break;
    // Split one term's digit u = k' * hi + lo (k' = k / gcd(coef, k)): coef * k' * hi is a
    // multiple of k (goes to q), coef * lo stays in r with a smaller range.
    bool split = false;
    for (IndexTerm& t : r.terms) {
      int64_t g = std::gcd(std::abs(t.second), k), kk = k / g;
      int64_t umax = digit_range(t, 0, extent(t)).second;
      if (umax < kk || (t.mod && t.mod % kk != 0)) continue;
      q.terms.push_back({t.first, t.second / g, t.div * kk, t.mod ? t.mod / kk : 0});
      t.mod = kk;
      split = true;
      break;
    }
    if (!split) not_quasi_affine(op, k);
  }
  return {q, r};
}

// Terms with equal digits merged, zero terms dropped.
IndexExpr normalized(IndexExpr e) {
  IndexExpr out = IndexExpr::constant(0);
  out.shape = e.shape;
  out.c0 = e.c0;
  for (const IndexTerm& t : e.terms) {
    if (t.second == 0) continue;
    auto it = std::find_if(out.terms.begin(), out.terms.end(), [&](auto& u) { return u.same_digit(t); });
    if (it == out.terms.end()) out.terms.push_back(t);
    else it->second += t.second;
  }
  erase_if(out.terms, [](auto& t) { return t.second == 0; });
  return out;
}

}  // namespace

IndexExpr floor_div(const IndexExpr& e, int64_t k) { return normalized(split_by(e, k, "//").first); }
IndexExpr modulo(const IndexExpr& e, int64_t k) { return normalized(split_by(e, k, "%").second); }

IndexShape broadcast_index_shapes(const IndexShape& a, const IndexShape& b) {
  IndexShape out;
  if (!tensor::broadcast_dims(a, b, out)) tensor::broadcast_shapes(a, b);  // throws numpy's error
  return out;
}

int Predicate::ndim() const {
  int n = 0;
  for (auto& c : constraints) n = std::max(n, c.expr.ndim());
  return n;
}

// ---- masks ---------------------------------------------------------------------------------------
namespace {

bool compare_zero(int64_t v, CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return v == 0;
    case CmpOp::Ne: return v != 0;
    case CmpOp::Lt: return v < 0;
    case CmpOp::Le: return v <= 0;
    case CmpOp::Gt: return v > 0;
    case CmpOp::Ge: return v >= 0;
  }
  return false;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// a*j + c OP 0 as a range [lo, hi) of j intersected into the box axis; returns false if the
// constraint is not expressible as a range (Ne), leaving it for the element test.
bool tighten(Box& box, int axis, int64_t a, int64_t c, CmpOp op) {
  int64_t& lo = box.lo[axis];
  int64_t& hi = box.hi[axis];
  // Normalise to a*j >= -c (Ge), a*j <= -c (Le), or equality.
  auto at_least = [&](int64_t a2, int64_t rhs) {  // a2*j >= rhs
    if (a2 > 0) lo = std::max(lo, ceil_div(rhs, a2));
    else hi = std::min(hi, floor_div(rhs, a2) + 1);
  };
  switch (op) {
    case CmpOp::Ge: at_least(a, -c); return true;
    case CmpOp::Gt: at_least(a, -c + 1); return true;
    case CmpOp::Le: at_least(-a, c); return true;
    case CmpOp::Lt: at_least(-a, c + 1); return true;
    case CmpOp::Eq: at_least(a, -c); at_least(-a, c); return true;
    case CmpOp::Ne: return false;
  }
  return false;
}

// A mask of more axes than the instruction's space whose extra axes are trailing and of size 1:
// the same mask over the first `n` axes. An on-chip partition vector (P,) is the (P, 1) tile
// (nki-language.md 3.7), so `mask=(nl.arange(P)[:, None] < k)` over an instruction iterating a
// (P,) reduce result places the arange on the partition axis as written. A term on a size-1 axis
// is always coef * 0 (a digit of index 0 too), so dropping the axis drops the term. nullopt when
// an extra axis is larger than 1 (the mask does not fit the space).
std::optional<IndexExpr> without_trailing_unit_axes(const IndexExpr& e, int n) {
  if (e.ndim() <= n) return e;
  for (int a = n; a < e.ndim(); ++a)
    if (e.shape[size_t(a)] != 1) return std::nullopt;
  IndexExpr r = e;
  r.shape.resize(size_t(n));
  erase_if(r.terms, [n](const IndexTerm& t) { return t.first >= n; });
  return r;
}

}  // namespace

MaskRegion mask_region(const Predicate* pred, const tensor::Shape& shape) {
  MaskRegion region;
  region.box = Box::full(shape);
  region.space_ndim = int(shape.size());
  if (!pred) return region;
  auto residual = std::make_shared<Predicate>();
  int n = int(shape.size());
  for (auto& c : pred->constraints) {
    auto trimmed = without_trailing_unit_axes(c.expr, n);
    if (!trimmed) {
      throw NkiError(ErrorKind::Value, fmt::format("mask has {} index dimensions but the instruction "
                                                   "iterates over {}", c.expr.ndim(), n));
    }
    IndexExpr e = trimmed->aligned_to(n);
    if (e.terms.empty()) {
      if (!compare_zero(e.c0, c.op)) region.box.hi = region.box.lo;  // always false: nothing runs
      continue;
    }
    if (e.terms.size() == 1 && e.terms[0].affine() &&
        tighten(region.box, e.terms[0].first, e.terms[0].second, e.c0, c.op))
      continue;
    residual->constraints.push_back({e, c.op});
  }
  if (!residual->constraints.empty()) region.residual = residual;
  return region;
}

bool MaskRegion::holds(const std::vector<int64_t>& j) const {
  if (!residual) return true;
  for (auto& c : residual->constraints)
    if (!compare_zero(c.expr.value_at(j.data()), c.op)) return false;
  return true;
}

// ---- values ----------------------------------------------------------------------------------------
Value make_index_expr(IndexExpr e) { return Value(std::make_shared<IndexExprObj>(std::move(e))); }

std::optional<IndexExpr> to_index_expr(const Value& v) {
  if (v.is_int() || v.is_bool()) return IndexExpr::constant(v.as_int());
  if (auto* e = v.as<IndexExprObj>()) return e->expr;
  if (v.is_object()) {
    if (auto s = to_python_scalar(v); s && (s->is_int() || s->is_bool())) return IndexExpr::constant(s->as_int());
  }
  return std::nullopt;
}

std::shared_ptr<const Predicate> to_predicate(const Value& v, std::string_view api) {
  if (v.is_none()) return nullptr;
  if (v.is_bool()) {
    if (v.as_bool()) return nullptr;
    auto p = std::make_shared<Predicate>();
    p->constraints.push_back({IndexExpr::constant(1), CmpOp::Eq});  // never true
    return p;
  }
  if (auto* obj = dynamic_cast<PredicateObj*>(v.object().get()); obj && v.is_object()) return obj->pred;
  throw NkiError(ErrorKind::Type, fmt::format("mask of {} must be a predicate of nl.arange index "
                                              "expressions, got {}", api, v.type_name()));
}

std::string IndexExprObj::repr() const {
  std::string s = fmt::format("IndexExpr(shape={}, {}", tensor::shape_str(expr.shape), expr.c0);
  for (auto& t : expr.terms) {
    std::string digit = fmt::format("j{}", t.first);
    if (t.div != 1) digit = fmt::format("({} // {})", digit, t.div);
    if (t.mod) digit = fmt::format("({} % {})", digit, t.mod);
    s += fmt::format(" + {}*{}", t.second, digit);
  }
  return s + ")";
}

bool IndexExprObj::truthy() const {
  throw NkiError(ErrorKind::Rule, "err_control_flow_condition_depending_on_arange: control flow "
                                  "cannot depend on an nl.arange index; use mask= instead");
}

Value IndexExprObj::get_item(Interpreter& in, const Value& index) {
  const Value* items = &index;
  size_t n_items = 1;
  if (auto* t = index.as<TupleObj>()) {
    items = t->items.data();
    n_items = t->items.size();
  }
  IndexExpr r;
  r.c0 = expr.c0;
  r.shape.reserve(n_items);  // inline up to rank 4; beyond, one allocation instead of regrowth
  int src_axis = 0;
  for (size_t i = 0; i < n_items; ++i) {
    const Value& item = items[i];
    if (item.is_none()) {
      r.shape.push_back(1);
      continue;
    }
    auto* s = item.as<SliceObj>();
    if (!s || !s->start.is_none() || !s->stop.is_none() || !s->step.is_none() || src_axis >= expr.ndim()) {
      throw NkiError(ErrorKind::Index, "an index expression can only be subscripted with ':' and "
                                       "None to place its axes, as in nl.arange(n)[:, None]");
    }
    for (auto& t : expr.terms)
      if (t.first == src_axis) r.terms.push_back({int(r.shape.size()), t.second, t.div, t.mod});
    r.shape.push_back(expr.shape[src_axis++]);
  }
  if (src_axis != expr.ndim())
    throw NkiError(ErrorKind::Index, "subscript of an index expression must keep every axis");
  return make_index_expr(std::move(r));
}

Value IndexExprObj::get_attr(Interpreter& in, std::string_view name) {
  if (name == "shape") {
    std::vector<Value> dims;
    for (auto d : expr.shape) dims.push_back(Value::from_int(d));
    return make_tuple(std::move(dims));
  }
  if (name == "ndim") return Value::from_int(expr.ndim());
  return Object::get_attr(in, name);
}

bool IndexExprObj::has_attr(std::string_view name) const { return name == "shape" || name == "ndim"; }

std::optional<Value> IndexExprObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  auto o = to_index_expr(other);
  if (!o) return std::nullopt;
  switch (op) {
    case BinOp::Add: return make_index_expr(add(expr, *o));
    case BinOp::Sub: return make_index_expr(reflected ? add(*o, expr.scaled(-1)) : add(expr, o->scaled(-1)));
    case BinOp::Mul:
      if (o->terms.empty()) return make_index_expr(expr.scaled(o->c0));
      break;
    case BinOp::FloorDiv:
    case BinOp::Mod:
      // `i // K` and `i % K` by constants: quasi-affine (digits of the axes).
      if (!reflected && o->terms.empty())
        return make_index_expr(op == BinOp::FloorDiv ? floor_div(expr, o->c0) : modulo(expr, o->c0));
      break;
    case BinOp::BitAnd:
      break;
    default:
      break;
  }
  throw NkiError(ErrorKind::Unsupported,
                 fmt::format("err_unsupported_expression_in_mask: '{}' on an nl.arange index expression "
                             "is not affine (only +, - and * by an integer, and // and % by a positive integer are)",
                             symbol(op)));
}

std::optional<Value> IndexExprObj::compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) {
  auto o = to_index_expr(other);
  if (!o) return std::nullopt;
  auto p = std::make_shared<Predicate>();
  IndexExpr diff = reflected ? add(*o, expr.scaled(-1)) : add(expr, o->scaled(-1));
  p->constraints.push_back({diff, op});
  return Value(std::make_shared<PredicateObj>(p));
}

std::optional<Value> IndexExprObj::unary_op(Interpreter& in, UnOp op) {
  if (op == UnOp::Neg) return make_index_expr(expr.scaled(-1));
  if (op == UnOp::Pos) return make_index_expr(expr);
  return std::nullopt;
}

bool PredicateObj::truthy() const {
  throw NkiError(ErrorKind::Rule, "err_control_flow_condition_depending_on_arange: a mask predicate "
                                  "has no truth value; combine predicates with '&', not 'and'");
}

std::optional<Value> PredicateObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  // A comparison of loop indices alone (`(k * U + u < S) & (i_f < M)`) is a Python bool here, since
  // the loops run on concrete integers; the legacy tracer had a predicate of the loop variables.
  // As a mask term it holds for every element or for none: True & p is p, False & p masks all out.
  if (other.is_bool() && (op == BinOp::BitAnd || op == BinOp::BitOr)) {
    bool all = other.as_bool();
    if ((op == BinOp::BitAnd) == all) return Value(std::make_shared<PredicateObj>(pred));
    if (op == BinOp::BitOr) return Value::from_bool(true);  // every element: no mask
    return Value(std::make_shared<PredicateObj>(to_predicate(other, "mask")));
  }
  auto* o = other.is_object() ? dynamic_cast<PredicateObj*>(other.object().get()) : nullptr;
  if (op != BinOp::BitAnd || !o) return std::nullopt;
  auto p = std::make_shared<Predicate>(*pred);
  for (auto& c : o->pred->constraints) p->constraints.push_back(c);
  return Value(std::make_shared<PredicateObj>(p));
}

Value MGridObj::get_item(Interpreter& in, const Value& index) {
  std::vector<Value> items;
  if (auto* t = index.as<TupleObj>()) items = t->items;
  else items = {index};
  tensor::Shape shape;
  std::vector<std::pair<int64_t, int64_t>> starts;  // (start, step)
  for (auto& item : items) {
    auto* s = item.as<SliceObj>();
    if (!s) throw NkiError(ErrorKind::Index, "nl.mgrid must be subscripted with slices a:b[:c]");
    int64_t start = s->start.is_none() ? 0 : to_int(s->start, "nl.mgrid start");
    int64_t stop = to_int(s->stop, "nl.mgrid stop");
    int64_t step = s->step.is_none() ? 1 : to_int(s->step, "nl.mgrid step");
    shape.push_back(IndexExpr::arange(start, stop, step).shape[0]);
    starts.push_back({start, step});
  }
  std::vector<Value> grids;
  for (size_t k = 0; k < items.size(); ++k) {
    IndexExpr e;
    e.c0 = starts[k].first;
    e.shape = shape;
    e.terms = {{int(k), starts[k].second}};
    grids.push_back(make_index_expr(std::move(e)));
  }
  if (grids.size() == 1) return grids[0];
  return Value(std::make_shared<MGridResult>(std::move(grids)));
}

Value MGridResult::get_attr(Interpreter& in, std::string_view name) {
  size_t k = name == "p" ? 0 : name == "x" ? 1 : name == "y" ? 2 : name == "z" ? 3 : 99;
  if (k < items.size()) return items[k];
  return TupleObj::get_attr(in, name);
}

bool MGridResult::has_attr(std::string_view name) const {
  return name == "p" || name == "x" || name == "y" || name == "z";
}

}  // namespace nki::lib
