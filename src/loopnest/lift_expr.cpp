// The lifter's expression evaluator: Python values of the kernel body as abstract values
// (lifter.h). Integers stay symbolic in the loop variables; index grids, slices and integers
// subscripting a tensor compose into access maps (lift_subscript.cpp); comprehensions are
// lift_comprehension.cpp's, modules and their attributes lift_modules.cpp's.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "tensor/dtype.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// The integer value of an instruction enum member (nki-language.md, "Engine and enum constants");
// any other value unchanged.
AValue enum_as_int(AValue v) {
  static const std::map<std::string, int64_t> values = {
      {"isa.reduce_cmd:idle", 0}, {"isa.reduce_cmd:reset", 1}, {"isa.reduce_cmd:reduce", 2},
      {"isa.reduce_cmd:reset_reduce", 3}, {"isa.dge_mode:none", 0}, {"isa.dge_mode:swdge", 1},
      {"isa.dge_mode:hwdge", 2}, {"isa.dge_mode:unknown", 3}, {"isa.oob_mode:error", 0}, {"isa.oob_mode:skip", 1},
      {"isa.matmul_perf_mode:none", 0}};
  if (v.k != K::Symbol) return v;
  auto it = values.find(v.s);
  return it == values.end() ? v : AValue::of_int(it->second);
}

Cmp negated(Cmp c) {
  switch (c) {
    case Cmp::Lt: return Cmp::Ge;
    case Cmp::Le: return Cmp::Gt;
    case Cmp::Gt: return Cmp::Le;
    case Cmp::Ge: return Cmp::Lt;
    case Cmp::Eq: return Cmp::Ne;
    case Cmp::Ne: return Cmp::Eq;
  }
  return c;
}

// `0.0 if blk == 0 else carry` (a scan starting from zero in the first chunk and from the carried
// tile after): the tile, with the number it gives way to where the condition says so
// (AValue::instead). None when the branches are not one number and one tile.
std::optional<AValue> number_or_tile(const AValue& cond, const AValue& then, const AValue& otherwise) {
  auto is_number = [](const AValue& v) { return v.k == K::Float || (v.k == K::Int && v.i.is_constant()); };
  auto same_number = [](const AValue& a, const AValue& b) {
    return a.k == b.k && (a.k == K::Float ? a.f == b.f && a.type == b.type : a.i == b.i);
  };
  const AValue& number = is_number(then) ? then : otherwise;
  const Cmp cmp = is_number(then) ? cond.cmp : negated(cond.cmp);
  // A tile that already gives way to this number under this very condition (an item of a list a
  // loop fills, lift_filled_list.cpp, printed back as `0.0 if c == 0 else carry[s]`): the choice is
  // the one it carries.
  auto plain = [&](const AValue& v) {
    return v.k == K::Tile && (!v.instead || (same_number(*v.instead, number) && v.cl == cond.cl && v.cr == cond.cr &&
                                             v.cmp == cmp));
  };
  bool number_first = is_number(then) && plain(otherwise);
  bool tile_first = plain(then) && is_number(otherwise);
  if (!number_first && !tile_first) return std::nullopt;
  AValue v = number_first ? otherwise : then;
  v.instead = std::make_shared<AValue>(number);
  v.cl = cond.cl, v.cr = cond.cr, v.cmp = cmp;
  return v;
}

AValue builtin(const std::string& id) {
  static const std::set<std::string> funcs = {"range", "min", "max", "len", "int", "float", "tuple", "list", "abs",
                                              "isinstance", "print", "bool", "round", "divmod", "zip",
                                              "enumerate", "sorted", "reversed", "slice", "set", "frozenset", "sum", "dict", "repr", "str"};
  if (funcs.count(id)) return AValue::of_kind(K::Func, "builtins." + id);
  return AValue::of_kind(K::Unknown);
}

Grid grid_of(const AValue& v) {
  if (v.k == K::Grid) return v.grid;
  Grid g;
  g.base = v.i;
  return g;
}

// a + sign * b for grids (ints are grids without axes): terms of one axis with the same
// quasi-affine form merge, others stay side by side (`(i % 4) * 256 + i // 4`).
Grid grid_add(const Grid& a, const Grid& b, int64_t sign) {
  Grid r;
  r.ndim = std::max(a.ndim, b.ndim);
  r.base = a.base + b.base * sign;
  r.dense = a.dense.size() >= b.dense.size() ? a.dense : b.dense;
  auto place = [&](const Grid& g, int64_t s) {
    for (const auto& [pos, ax] : g.axes) {
      int p = pos + (r.ndim - g.ndim);
      bool merged = false;
      for (auto [it, end] = r.axes.equal_range(p); it != end && !merged; ++it)
        if (it->second.div == ax.div && it->second.mod == ax.mod && it->second.size == ax.size) {
          it->second.coef += ax.coef * s;
          merged = true;
        }
      if (merged) continue;
      Grid::Axis x = ax;
      x.coef *= s;
      r.axes.emplace(p, x);
    }
  };
  place(a, 1);
  place(b, sign);
  return r;
}

// base + coef * ((a // div) % mod) over one axis, floor-divided (mod_op false) or taken modulo
// (mod_op true) by the constant k > 0: still one quasi-affine term when base is a multiple of k
// and the coefficient and k divide one another. nullopt otherwise.
std::optional<Grid> grid_quasi(const Grid& g, int64_t k, bool mod_op, const Ranges& ranges) {
  if (g.axes.size() != 1 || k <= 0) return std::nullopt;
  if (!(IExpr::mod(g.base, k, &ranges) == IExpr(0))) return std::nullopt;
  Grid r = g;
  Grid::Axis& ax = r.axes.begin()->second;
  int64_t c = ax.coef;
  if (c <= 0) return std::nullopt;
  if (!mod_op) {
    r.base = IExpr::floordiv(g.base, k, &ranges);
    if (c % k == 0) {  // (k*m*f) // k = m*f
      ax.coef = c / k;
      return r;
    }
    if (k % c != 0) return std::nullopt;
    int64_t q = k / c;  // (c*f) // k = f // q
    ax.coef = 1;
    if (ax.mod == 0) {
      ax.div *= q;
      return r;
    }
    if (ax.mod % q != 0) return std::nullopt;  // ((a//d) % m) // q = (a // (d*q)) % (m/q) when q | m
    ax.div *= q;
    ax.mod /= q;
    return r;
  }
  r.base = IExpr(0);
  if (c % k == 0) {  // a multiple of k
    r.axes.clear();
    return r;
  }
  if (k % c != 0) return std::nullopt;
  int64_t q = k / c;  // (c*f) % k = c * (f % q)
  if (ax.mod == 0 || ax.mod % q == 0) ax.mod = q;
  else if (q % ax.mod != 0) return std::nullopt;  // f already below q when mod | q
  return r;
}

Grid grid_scale(const Grid& a, int64_t k) {
  Grid r = a;
  r.base = a.base * k;
  for (auto& [p, ax] : r.axes) ax.coef *= k;
  return r;
}

}  // namespace

void Lifter::fail(const Span& at, const std::string& what) const {
  Diagnostic d;
  d.kind = ErrorKind::Unsupported;
  d.loc = loc_of(module->file, at);
  d.message = "cannot lift " + what;
  throw LiftError(std::move(d));
}

Access Lifter::whole(int tensor) const { return whole_of(k, tensor); }

IExpr Lifter::int_of(const AValue& v, const Expr& at) {
  if (v.k == K::Int || v.k == K::ParDim) return v.i;
  if (v.k == K::Bool) return IExpr(v.b ? 1 : 0);
  if (v.k == K::Float && v.f == std::floor(v.f) && std::fabs(v.f) < 1e15) return IExpr(static_cast<int64_t>(v.f));
  fail(at.span, fmt::format("'{}': an integer was expected here", print_expr(at)));
}

IExpr Lifter::int_of(const Expr& e) { return int_of(eval(e), e); }

std::vector<IExpr> Lifter::shape_of(const AValue& v, const Expr& at, int* partition_dim) {
  std::vector<IExpr> shape;
  if (partition_dim) *partition_dim = -1;
  if (v.k == K::Tuple || v.k == K::List) {
    for (size_t i = 0; i < v.items.size(); ++i) {
      if (v.items[i].k == K::ParDim && partition_dim) *partition_dim = static_cast<int>(i);
      shape.push_back(int_of(v.items[i], at));
    }
    return shape;
  }
  if (v.k == K::Int) return {v.i};
  fail(at.span, fmt::format("'{}': a shape tuple was expected here", print_expr(at)));
}

std::optional<bool> host_truth(const AValue& v) {
  using K = AValue::K;
  switch (v.k) {
    case K::Bool: return v.b;
    case K::None: return false;
    case K::Int: return v.i.is_constant() ? std::optional<bool>(v.i.constant() != 0) : std::nullopt;
    case K::Float: return v.f != 0;
    case K::Str: return !v.s.empty();
    case K::Tuple: case K::List: case K::Set: return !v.items.empty();
    case K::Dict: return !v.keys.empty();
    default: return std::nullopt;
  }
}

// An expression the lift's own rules cannot evaluate may still be a host value the kernel's
// Python computes at trace time (lift_fold.cpp): calls, attributes and subscripts get a second
// try through the language core before the refusal stands; so does arithmetic, which the lift's
// rules do not do on a host array (`np.arange(N, dtype=np.float32).reshape(1, N) / N`).
AValue Lifter::eval(const Expr& e) {
  if (e.kind != ExprKind::Call && e.kind != ExprKind::Attribute && e.kind != ExprKind::Subscript &&
      e.kind != ExprKind::BinOp && e.kind != ExprKind::UnaryOp)
    return eval_node(e);
  try {
    return eval_node(e);
  } catch (const LiftError&) {
    if (auto v = host_fold(e)) return *v;
    throw;
  }
}

AValue Lifter::eval_node(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: {
      const std::string& id = static_cast<const NameExpr&>(e).id;
      if (auto it = env.find(id); it != env.end()) {
        auto bb = branch_bound.find(id);
        if (bb != branch_bound.end() && it->second.k == K::Tile && it->second.access.tensor == bb->second)
          reads_branch_bound = true;
        return it->second;
      }
      if (auto it = globals.find(id); it != globals.end()) return it->second;
      AValue b = builtin(id);
      if (b.k != K::Unknown) return b;
      fail(e.span, fmt::format("the name '{}' (not defined in the kernel or its module)", id));
    }
    case ExprKind::FString: {
      // An f-string of host values (an assertion's or a __repr__'s text): its fields evaluated here
      // (an instance's attribute, a shape), then formatted by the language core as Python does.
      std::vector<std::optional<std::string>> fields;
      for (const auto& part : static_cast<const FStringExpr&>(e).parts) {
        if (!part.expr) continue;
        AValue v = eval(*part.expr);
        fields.push_back(py_literal(v));
        if (!fields.back()) fail(part.expr->span, fmt::format("the f-string field '{}' (not a host value)", print_expr(*part.expr)));
      }
      if (auto v = format_fstring(static_cast<const FStringExpr&>(e), fields)) return *v;
      fail(e.span, fmt::format("the expression '{}'", print_expr(e)));
    }
    case ExprKind::Constant: {
      const Value& v = static_cast<const ConstantExpr&>(e).value;
      if (v.is_none()) return AValue::of_kind(K::None);
      if (v.is_bool()) return AValue::of_bool(v.as_bool());
      if (v.is_int()) return AValue::of_int(v.as_int());
      if (v.is_float()) return AValue::of_float(v.as_float());
      if (v.is(ObjType::Ellipsis)) return AValue::of_kind(K::Ellipsis);
      if (auto* str = v.as<StrObj>()) return AValue::of_kind(K::Str, str->s);
      fail(e.span, "this constant");
    }
    case ExprKind::Attribute: {
      auto& a = static_cast<const AttributeExpr&>(e);
      AValue base = eval(*a.value);
      if (base.k == K::Module) return module_attr(base.s, a.attr);
      if (base.k == K::Tile) {
        if (a.attr == "shape") {
          std::vector<AValue> items;
          for (auto& s : base.access.tile_shape()) items.push_back(AValue::of_int(s));
          return AValue::of_tuple(std::move(items));
        }
        if (a.attr == "dtype") return AValue::of_kind(K::DType, k.tensor(base.access.tensor).dtype);
        if (a.attr == "ndim") return AValue::of_int(static_cast<int64_t>(base.access.tile_shape().size()));
        if (a.attr == "itemsize") {
          auto dt = tensor::parse_dtype(k.tensor(base.access.tensor).dtype);
          if (!dt) fail(e.span, fmt::format("'{}' of a tensor whose dtype is not known", print_expr(e)));
          return AValue::of_int(tensor::itemsize(*dt));
        }
        if (a.attr == "size") {  // the element count
          int64_t n = 1;
          for (auto& s : base.access.tile_shape()) {
            if (!s.is_constant()) fail(e.span, fmt::format("'{}' of a view whose shape depends on a loop", print_expr(e)));
            n *= s.constant();
          }
          return AValue::of_int(n);
        }
        AValue m = AValue::of_kind(K::Method, a.attr);
        m.self = std::make_shared<AValue>(base);
        return m;
      }
      if (base.k == K::Tuple && (a.attr == "p" || a.attr == "x" || a.attr == "y" || a.attr == "z")) {
        size_t i = a.attr == "p" ? 0 : a.attr == "x" ? 1 : a.attr == "y" ? 2 : 3;
        if (i < base.items.size()) return base.items[i];
      }
      // A dtype's data attributes (numpy's): `2048 // dt.itemsize`, `dt.name`.
      if (base.k == K::DType && (a.attr == "itemsize" || a.attr == "name")) {
        auto d = tensor::parse_dtype(base.s);
        if (!d) fail(e.span, fmt::format("the attribute '{}' of the dtype '{}'", a.attr, base.s));
        if (a.attr == "itemsize") return AValue::of_int(static_cast<int64_t>(tensor::itemsize(*d)));
        std::string name(tensor::name(*d));
        return AValue::of_kind(K::Str, name == "bool" ? "bool" : name);
      }
      if (base.k == K::DType || base.k == K::List || base.k == K::Tuple || base.k == K::Dict || base.k == K::Set) {
        AValue m = AValue::of_kind(K::Method, a.attr);
        m.self = std::make_shared<AValue>(base);
        return m;
      }
      if (base.k == K::Func && base.s == "numpy.dtype") return AValue::of_kind(K::Func, "numpy.dtype." + a.attr);
      if (base.k == K::Instance) return instance_attr(base, a.attr, e);
      if (base.k == K::Class) return class_attr(base.s, a.attr, e);
      fail(e.span, fmt::format("the attribute '{}'", print_expr(e)));
    }
    case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
    case ExprKind::Subscript: {
      auto& s = static_cast<const SubscriptExpr&>(e);
      // `nl.mgrid[...]`, or `mgrid[...]` with the name imported from nki.language.
      bool attr_mgrid = s.value->kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(*s.value).attr == "mgrid";
      bool name_mgrid = s.value->kind == ExprKind::Name;
      if (attr_mgrid || name_mgrid) {
        AValue m = attr_mgrid ? eval(*static_cast<const AttributeExpr&>(*s.value).value) : eval(*s.value);
        if ((attr_mgrid && m.k == K::Module && m.s == "nki.language") ||
            (name_mgrid && m.k == K::Func && m.s == "nki.language.mgrid")) {
          std::vector<const Expr*> items;
          if (s.index->kind == ExprKind::Tuple)
            for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) items.push_back(x.get());
          else
            items.push_back(s.index.get());
          std::vector<AValue> grids;
          std::vector<IExpr> dense;
          for (size_t i = 0; i < items.size(); ++i) {
            if (items[i]->kind != ExprKind::Slice) fail(items[i]->span, "an nl.mgrid item that is not a slice");
            auto& sl = static_cast<const SliceExpr&>(*items[i]);
            IExpr lo = sl.lower ? int_of(*sl.lower) : IExpr(0), hi = int_of(*sl.upper);
            AValue g;
            g.k = K::Grid;
            g.grid.ndim = static_cast<int>(items.size());
            g.grid.base = lo;
            g.grid.axes.emplace(static_cast<int>(i), Grid::Axis{1, hi - lo});
            dense.push_back(hi - lo);
            grids.push_back(std::move(g));
          }
          for (AValue& g : grids) g.grid.dense = dense;
          return AValue::of_tuple(std::move(grids));
        }
      }
      AValue base = eval(*s.value);
      if (base.k == K::Func && base.s.rfind("user.", 0) == 0 && base.items.empty()) {
        // `kernel_[2, 2]`: an SPMD launch of a kernel of the module over a grid of programs.
        AValue launch = base;
        std::vector<const Expr*> dims;
        if (s.index->kind == ExprKind::Tuple)
          for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) dims.push_back(x.get());
        else
          dims.push_back(s.index.get());
        for (const Expr* d : dims) {
          AValue v = eval(*d);
          if (dims.size() == 1 && (v.k == K::Tuple || v.k == K::List)) {  // `kernel_[grid]`, grid a tuple
            for (const AValue& x : v.items) launch.items.push_back(AValue::of_int(int_of(x, *d)));
            continue;
          }
          launch.items.push_back(AValue::of_int(int_of(v, *d)));
        }
        return launch;
      }
      if (base.k == K::Tile) {
        if (base.gather) fail(e.span, fmt::format("'{}': a subscript of an indirect (index-tile) access", print_expr(e)));
        std::shared_ptr<AValue> gather;
        AValue r = AValue::of_tile(subscript(base.access, *s.index, e, &gather));
        r.gather = std::move(gather);
        return r;
      }
      if (base.k == K::Grid && base.grid.ndim == 0) {
        // nl.arange(n)[:, None]: the position of ':' is the axis, the item count the ndim.
        std::vector<const Expr*> items;
        if (s.index->kind == ExprKind::Tuple)
          for (auto& x : static_cast<const SequenceExpr&>(*s.index).elts) items.push_back(x.get());
        else
          items.push_back(s.index.get());
        AValue g = base;
        g.grid.ndim = static_cast<int>(items.size());
        if (base.grid.axes.empty()) fail(s.index->span, "an index grid without an axis placed by a subscript");
        g.grid.axes.clear();
        int placed = 0;
        for (size_t i = 0; i < items.size(); ++i) {
          if (items[i]->kind == ExprKind::Slice) {
            for (const auto& [pos, ax] : base.grid.axes) g.grid.axes.emplace(static_cast<int>(i), ax);
            ++placed;
          } else if (!(items[i]->kind == ExprKind::Constant && static_cast<const ConstantExpr&>(*items[i]).value.is_none())) {
            fail(items[i]->span, "an nl.arange subscript other than ':' and None");
          }
        }
        if (placed != 1) fail(s.index->span, "an nl.arange subscript without exactly one ':'");
        return g;
      }
      if (const Tensor* lt = list_tensor(base)) {
        // scores[m]: block m of the list's tensor. A list of lists is one level of it: the levels
        // outside it are the iterations of their loops the subscript is in (`block_tiles[bm]`
        // inside the m loop is result_tiles[m][bm]).
        const Tensor& t = *lt;
        std::vector<std::pair<std::string, int>> lists = t.outer_lists;
        lists.push_back({t.list_name, t.list_loop});
        size_t level = 0;
        if (s.value->kind == ExprKind::Name)
          for (size_t i = 0; i < lists.size(); ++i)
            if (lists[i].first == static_cast<const NameExpr&>(*s.value).id) level = i;
        Access list;
        list.tensor = t.id;
        for (size_t d = 0; d < t.shape.size(); ++d) {
          if (d < level) list.dims.push_back({IExpr::var(lists[d].second), {}});
          else list.dims.push_back({IExpr(0), {{static_cast<int>(d - level), t.shape[d], 1}}});
        }
        return AValue::of_tile(subscript(list, *s.index, e));
      }
      if (base.k == K::Dict) {
        AValue key = eval(*s.index);
        if (const AValue* v = dict_get(base, key)) return *v;
        fail(s.index->span, fmt::format("'{}': the key is not in the dict", print_expr(e)));
      }
      if ((base.k == K::Tuple || base.k == K::List) && s.index->kind == ExprKind::Slice)
        return sequence_slice(base, static_cast<const SliceExpr&>(*s.index), e);
      if (base.k == K::Tuple || base.k == K::List) {
        AValue i = eval(*s.index);
        // An item of a list of numbers a loop fills with tiles (lift_filled_list.cpp).
        if (base.k == K::List && s.value->kind == ExprKind::Name)
          if (auto v = read_filled(static_cast<const NameExpr&>(*s.value).id, base, i, e)) return *v;
        if (i.k == K::Int && i.i.is_constant()) {
          int64_t n = static_cast<int64_t>(base.items.size()), x = i.i.constant();
          if (x < 0) x += n;
          if (x < 0 || x >= n) fail(e.span, fmt::format("'{}': index out of range", print_expr(e)));
          return base.items[static_cast<size_t>(x)];
        }
        if (i.k == K::Int)
          if (auto item = progression_item(base.items, i.i, ranges())) return *item;
        // `outs[k]` in `for k in range(3)`: the loop may still lift as its copies, each with its
        // item (for_loop), as the trace runs it.
        if (i.k == K::Int) per_iteration_host_refused = true;
        fail(e.span, fmt::format("'{}': a {} indexed by a loop-dependent value", print_expr(e),
                                 base.k == K::List ? "Python list" : "tuple"));
      }
      fail(e.span, fmt::format("the subscript '{}'", print_expr(e)));
    }
    case ExprKind::Dict: return dict_display(static_cast<const DictExpr&>(e));
    case ExprKind::Lambda: return lambda(static_cast<const LambdaExpr&>(e));
    case ExprKind::Tuple: case ExprKind::List: {
      std::vector<AValue> items;
      for (auto& x : static_cast<const SequenceExpr&>(e).elts) items.push_back(eval(*x));
      AValue t = AValue::of_tuple(std::move(items));
      if (e.kind == ExprKind::List) t.k = K::List;
      return t;
    }
    case ExprKind::UnaryOp: {
      auto& u = static_cast<const UnaryOpExpr&>(e);
      AValue v = eval(*u.operand);
      if (u.op == UnOp::Neg) {
        if (v.k == K::Int) return AValue::of_int(-v.i);
        if (v.k == K::Float) return AValue::of_float(-v.f, v.type);
        if (v.k == K::Grid) { AValue g = v; g.grid = grid_scale(v.grid, -1); return g; }
        // `-a` of a tile is nl.negative, as `a * b` is nl.multiply.
        if (v.k == K::Tile) return apply("nl.negative", {{"x", v}}, {{"x", u.operand.get()}}, e, nullptr);
      }
      if (u.op == UnOp::Pos) return v;
      if (u.op == UnOp::Invert) {
        // `~a` of a tile is nl.invert, as the language core runs it (nki_tensor.cpp unary_op); of a
        // Python int, Python's `-a - 1`.
        if (v.k == K::Tile) return apply("nl.invert", {{"x", v}}, {{"x", u.operand.get()}}, e, nullptr);
        if (v.k == K::Int) return AValue::of_int(-v.i - IExpr(1));
        if (v.k == K::Bool) return AValue::of_int(IExpr(v.b ? -2 : -1));
      }
      if (u.op == UnOp::Not) {
        if (auto t = host_truth(v)) return AValue::of_bool(!*t);
        // `not first` of a loop-dependent condition (`first = k == 0`): the opposite comparison.
        if (v.k == K::Cond) {
          static constexpr Cmp kOpposite[] = {Cmp::Ge, Cmp::Gt, Cmp::Le, Cmp::Lt, Cmp::Ne, Cmp::Eq};
          v.cmp = kOpposite[static_cast<size_t>(v.cmp)];
          return v;
        }
      }
      fail(e.span, fmt::format("the unary operation '{}'", print_expr(e)));
    }
    case ExprKind::BinOp: {
      auto& b = static_cast<const BinOpExpr&>(e);
      AValue l = eval(*b.left), r = eval(*b.right);
      bool li = l.k == K::Int || l.k == K::Bool, ri = r.k == K::Int || r.k == K::Bool;
      if (li && ri) {
        IExpr a = int_of(l, *b.left), c = int_of(r, *b.right);
        Ranges rg = ranges();
        switch (b.op) {
          case BinOp::Add: return AValue::of_int(a + c);
          case BinOp::Sub: return AValue::of_int(a - c);
          case BinOp::Mul:
            if (auto p = a.times(c)) return AValue::of_int(*p);
            fail(e.span, fmt::format("the non-affine product '{}'", print_expr(e)));
          case BinOp::FloorDiv:
            if (c.is_constant() && c.constant() != 0) return AValue::of_int(IExpr::floordiv(a, c.constant(), &rg));
            fail(e.span, fmt::format("'{}': division by a loop-dependent value", print_expr(e)));
          case BinOp::Mod:
            if (c.is_constant() && c.constant() != 0) return AValue::of_int(IExpr::mod(a, c.constant(), &rg));
            fail(e.span, fmt::format("'{}': remainder by a loop-dependent value", print_expr(e)));
          case BinOp::Div:
            if (a.is_constant() && c.is_constant() && c.constant() != 0)
              return AValue::of_float(static_cast<double>(a.constant()) / static_cast<double>(c.constant()));
            break;
          case BinOp::Pow:
            if (a.is_constant() && c.is_constant() && c.constant() >= 0) {
              int64_t p = 1;
              for (int64_t i = 0; i < c.constant(); ++i) p *= a.constant();
              return AValue::of_int(p);
            }
            break;
          default: break;
        }
        // Bit operations on constants (`(1 << n_log2) - 1`, `flags & 0xFF`): plain Python ints.
        if (a.is_constant() && c.is_constant()) {
          int64_t x = a.constant(), y = c.constant();
          switch (b.op) {
            case BinOp::LShift: if (y >= 0 && y < 63) return AValue::of_int(IExpr(x << y)); break;
            case BinOp::RShift: if (y >= 0) return AValue::of_int(IExpr(y < 63 ? x >> y : (x < 0 ? -1 : 0))); break;
            case BinOp::BitAnd: return AValue::of_int(IExpr(x & y));
            case BinOp::BitOr: return AValue::of_int(IExpr(x | y));
            case BinOp::BitXor: return AValue::of_int(IExpr(x ^ y));
            default: break;
          }
        }
        fail(e.span, fmt::format("the integer operation '{}'", print_expr(e)));
      }
      // `1.0 + pid_r + 0.5 * pid_c`: float arithmetic on the program ids of an SPMD launch, which no
      // transformation moves, is a value kept as the text of its use; on a loop variable it has no
      // form (operand expressions are integer).
      auto program_float = [&](const AValue& v, bool is_int) {
        return (v.k == K::Float && v.type == "program") || (is_int && !v.i.is_constant());
      };
      if ((l.k == K::Float || li) && (r.k == K::Float || ri) && (program_float(l, li) || program_float(r, ri))) {
        if ((li && depends_on_loops(l)) || (ri && depends_on_loops(r))) {
          // `k * 1.0` in `for k in nl.sequential_range(4)`: the loop may still lift as its copies
          // (for_loop), each with k a host int, as the trace runs it.
          per_iteration_host_refused = true;
          fail(e.span, fmt::format("the float operation '{}' on a loop variable", print_expr(e)));
        }
        return AValue::of_float(NAN, "program");
      }
      bool lf = l.k == K::Float || (li && l.i.is_constant()), rf = r.k == K::Float || (ri && r.i.is_constant());
      if (lf && rf) {
        double x = l.k == K::Float ? l.f : static_cast<double>(l.i.constant());
        double y = r.k == K::Float ? r.f : static_cast<double>(r.i.constant());
        std::string type = l.k == K::Float ? l.type : r.type;
        switch (b.op) {
          case BinOp::Add: return AValue::of_float(x + y, type);
          case BinOp::Sub: return AValue::of_float(x - y, type);
          case BinOp::Mul: return AValue::of_float(x * y, type);
          case BinOp::Div: return AValue::of_float(x / y, type);
          case BinOp::Pow: return AValue::of_float(std::pow(x, y), type);
          default: break;
        }
        fail(e.span, fmt::format("the float operation '{}'", print_expr(e)));
      }
      bool lg = l.k == K::Grid || li, rg = r.k == K::Grid || ri;
      if (lg && rg && (l.k == K::Grid || r.k == K::Grid)) {
        AValue g;
        g.k = K::Grid;
        if (b.op == BinOp::Add || b.op == BinOp::Sub) {
          g.grid = grid_add(grid_of(l), grid_of(r), b.op == BinOp::Add ? 1 : -1);
          if ((l.k == K::Grid && l.grid.ndim == 0) || (r.k == K::Grid && r.grid.ndim == 0)) g.grid.ndim = 0;
          return g;
        }
        if ((b.op == BinOp::FloorDiv || b.op == BinOp::Mod) && l.k == K::Grid && ri && r.i.is_constant()) {
          // `i_f // 128`, `i_f % 128`: a quasi-affine index (the axis split over two dims).
          Ranges rgs = ranges();
          if (auto q = grid_quasi(l.grid, r.i.constant(), b.op == BinOp::Mod, rgs)) {
            g.grid = *q;
            return g;
          }
        }
        if (b.op == BinOp::Mul && (li || ri)) {
          IExpr c = li ? l.i : r.i;
          if (c.is_constant()) {
            g.grid = grid_scale(li ? r.grid : l.grid, c.constant());
            return g;
          }
        }
        fail(e.span, fmt::format("the index-grid operation '{}'", print_expr(e)));
      }
      if (l.k == K::Pred && r.k == K::Pred && b.op == BinOp::BitAnd) {
        AValue p = l;
        p.pred.insert(p.pred.end(), r.pred.begin(), r.pred.end());
        return p;
      }
      if ((l.k == K::Tuple || l.k == K::List) && ri && b.op == BinOp::Mul) {  // `["rest"] * (n - 1)`
        IExpr n = int_of(r, *b.right);
        if (!n.is_constant()) fail(e.span, fmt::format("'{}': a sequence repeated a loop-dependent number of times", print_expr(e)));
        AValue t = l;
        t.items.clear();
        for (int64_t i = 0; i < n.constant(); ++i) t.items.insert(t.items.end(), l.items.begin(), l.items.end());
        return t;
      }
      if ((l.k == K::Tuple || l.k == K::List) && (r.k == K::Tuple || r.k == K::List) && b.op == BinOp::Add) {
        AValue t = l;
        t.items.insert(t.items.end(), r.items.begin(), r.items.end());
        return t;
      }
      if (auto s = set_binary(l, b.op, r, e)) return *s;
      if (l.k == K::Tile || r.k == K::Tile) {
        static const std::map<BinOp, const char*> ops = {{BinOp::Add, "nl.add"}, {BinOp::Sub, "nl.subtract"},
                                                         {BinOp::Mul, "nl.multiply"}, {BinOp::Div, "nl.divide"},
                                                         {BinOp::Pow, "nl.power"}, {BinOp::BitAnd, "nl.bitwise_and"},
                                                         {BinOp::BitOr, "nl.bitwise_or"}, {BinOp::BitXor, "nl.bitwise_xor"},
                                                         {BinOp::LShift, "nl.left_shift"}, {BinOp::RShift, "nl.right_shift"}};
        if (auto it = ops.find(b.op); it != ops.end()) {
          return apply(it->second, {{"x", l}, {"y", r}}, {{"x", b.left.get()}, {"y", b.right.get()}}, e, nullptr);
        }
      }
      fail(e.span, fmt::format("the operation '{}'", print_expr(e)));
    }
    case ExprKind::Compare: {
      auto& c = static_cast<const CompareExpr&>(e);
      if (c.ops.size() == 1) return compare(eval(*c.left), c.ops[0], eval(*c.comparators[0]), *c.left, *c.comparators[0], e);
      // A chain `a == b == c` (shape and dtype checks): every link must be known when lifting.
      // A link comparing loop variables (`1 <= s < T + 1`) joins the others as `and` does.
      AValue l = eval(*c.left);
      const Expr* le = c.left.get();
      bool all = true;
      std::optional<AValue> cond;
      for (size_t i = 0; i < c.ops.size(); ++i) {
        AValue r = eval(*c.comparators[i]);
        AValue link = compare(l, c.ops[i], r, *le, *c.comparators[i], e);
        if (link.k == K::Cond) cond = cond ? cond_join(*cond, link, true) : link;
        else if (link.k != K::Bool) fail(e.span, "a chained comparison whose links are not known when lifting");
        else all = all && link.b;
        l = std::move(r);
        le = c.comparators[i].get();
      }
      if (cond && all) return *cond;
      return AValue::of_bool(all);
    }
    case ExprKind::BoolOp: {
      // Python's and/or: evaluated left to right, stopping at the first operand that decides,
      // which is the value (`rows or 128`, `x is not None and x.shape[0] > 1`).
      // One operand may be a comparison of loop variables (`t == ntiles - 1 and n % 128 != 0`, a
      // first version's ragged last tile) when the operands after it are True or False: `c and
      // True` and `c or False` are `c`, `c and False` is False and `c or True` is True, as values
      // too. The last operand is the value as it is (`rows > 0 and t == last`).
      auto& b = static_cast<const BoolOpExpr&>(e);
      AValue x;
      std::optional<AValue> cond;
      for (size_t i = 0; i < b.values.size(); ++i) {
        const Expr& v = *b.values[i];
        x = eval(v);
        if (i + 1 == b.values.size() && !cond) return x;
        auto t = host_truth(x);
        if (!t && x.k == K::Cond && !cond) {
          cond = x;
          continue;
        }
        if (!t && x.k == K::Cond && cond) {  // `s >= 1 and s - 1 < T`: both comparisons, one condition
          cond = cond_join(*cond, x, b.is_and);
          continue;
        }
        if (!t || (cond && x.k != K::Bool))
          fail(v.span, fmt::format("'{}' as a condition of and/or{}", print_expr(v),
                                   cond ? " after a comparison of loop variables (only True or False may follow it)"
                                        : ""));
        if (*t != b.is_and) return x;
      }
      return cond ? *cond : x;
    }
    case ExprKind::ListComp: case ExprKind::GeneratorExp: case ExprKind::DictComp:
      return comprehension(static_cast<const ComprehensionExpr&>(e));
    case ExprKind::SetComp: return make_set(comprehension(static_cast<const ComprehensionExpr&>(e)).items, e);
    case ExprKind::Set: {
      std::vector<AValue> items;
      for (auto& x : static_cast<const SequenceExpr&>(e).elts) items.push_back(eval(*x));
      return make_set(items, e);
    }
    case ExprKind::NamedExpr: {  // `(n := rows // 128)` binds n in the enclosing scope
      auto& x = static_cast<const NamedExpr&>(e);
      if (x.target->kind != ExprKind::Name) fail(x.target->span, "an assignment expression to something other than a name");
      AValue v = eval(*x.value);
      env[static_cast<const NameExpr&>(*x.target).id] = v;
      return v;
    }
    case ExprKind::IfExp: {
      auto& x = static_cast<const IfExpExpr&>(e);
      AValue t = eval(*x.test);
      if (auto truth = host_truth(t)) return *truth ? eval(*x.body) : eval(*x.orelse);
      if (t.k == K::Cond) {
        AValue a = eval(*x.body), b = eval(*x.orelse);
        if (auto choice = number_or_tile(t, a, b)) return *choice;
        // An instruction enum chosen per iteration (`reduce_cmd.reset_reduce if c == 0 else
        // reduce_cmd.reduce`) is the choice between the enum's integer values, which every API
        // taking it accepts.
        a = enum_as_int(a), b = enum_as_int(b);
        auto number = [](const AValue& v) { return v.k == K::Int || v.k == K::Bool || v.k == K::Float; };
        // A float on either side: the same number both ways is no choice (`0.0 if c == 0 else
        // state[r]` while a filled list's items are still its initial numbers); two different
        // ones are refused below, as operand expressions are integer.
        auto value = [](const AValue& v) -> std::optional<double> {
          if (v.k == K::Float) return v.f;
          if (v.k == K::Int && v.i.is_constant()) return static_cast<double>(v.i.constant());
          return std::nullopt;
        };
        if ((a.k == K::Float || b.k == K::Float) && value(a) && value(b) && *value(a) == *value(b))
          return a.k == K::Float ? a : b;
        if (!number(a) || !number(b) || a.k == K::Float || b.k == K::Float) {
          // `(nl.maximum if k == 0 else nl.minimum)(r, c)`: a function, dtype or string chosen per
          // iteration, or a float (`2.0 if i == 0 else 0.5`: operand expressions are integer); the
          // loop may still lift as its copies (for_loop).
          per_iteration_host_refused = true;
          fail(x.test->span, fmt::format("a choice between host values ('{}' or '{}') under the condition '{}' on a loop "
                                         "variable (one loop of the form holds one of them)",
                                         print_expr(*x.body), print_expr(*x.orelse), print_expr(*x.test)));
        }
        Ranges rg = ranges();
        return AValue::of_int(IExpr::select(t.cl, t.cmp, t.cr, int_of(a, *x.body), int_of(b, *x.orelse), &rg));
      }
      fail(x.test->span, fmt::format("the condition '{}'", print_expr(*x.test)));
    }
    default: break;
  }
  fail(e.span, fmt::format("the expression '{}'", print_expr(e)));
}

// `a and b` (`a or b`) of two comparisons of loop variables as one condition: the selection
// `(a ? (b ? 1 : 0) : 0) == 1` (`(a ? 1 : (b ? 1 : 0)) == 1`), true exactly where Python's is.
AValue Lifter::cond_join(const AValue& a, const AValue& b, bool is_and) {
  Ranges rg = ranges();
  IExpr bi = IExpr::select(b.cl, b.cmp, b.cr, IExpr(1), IExpr(0), &rg);
  IExpr j = is_and ? IExpr::select(a.cl, a.cmp, a.cr, bi, IExpr(0), &rg)
                   : IExpr::select(a.cl, a.cmp, a.cr, IExpr(1), bi, &rg);
  if (j.is_constant()) return AValue::of_bool(j.constant() == 1);
  AValue c;
  c.k = K::Cond;
  c.cl = j, c.cr = IExpr(1), c.cmp = Cmp::Eq;
  return c;
}

// One comparison `l op r` of evaluated operands (le, re: their expressions; e: the whole one).
AValue Lifter::compare(const AValue& l, nki::CmpKind op, const AValue& r, const nki::Expr& le, const nki::Expr& re,
                       const nki::Expr& e) {
  static const std::map<CmpKind, Cmp> cmps = {{CmpKind::Lt, Cmp::Lt}, {CmpKind::Le, Cmp::Le}, {CmpKind::Gt, Cmp::Gt},
                                              {CmpKind::Ge, Cmp::Ge}, {CmpKind::Eq, Cmp::Eq}, {CmpKind::Ne, Cmp::Ne}};
  auto it = cmps.find(op);
  bool li = l.k == K::Int || l.k == K::Bool, ri = r.k == K::Int || r.k == K::Bool;
  if (it != cmps.end() && li && ri) {
    IExpr a = int_of(l, le), b = int_of(r, re);
    IExpr d = a - b;
    Ranges rg = ranges();
    IExpr one = IExpr::select(d, it->second, IExpr(0), IExpr(1), IExpr(0), &rg);
    if (one.is_constant()) return AValue::of_bool(one.constant() == 1);
    AValue cond;
    cond.k = K::Cond;
    cond.cl = a, cond.cr = b, cond.cmp = it->second;
    return cond;
  }
  if (it != cmps.end() && (l.k == K::Grid || r.k == K::Grid) && (li || l.k == K::Grid) && (ri || r.k == K::Grid)) {
    Grid g = grid_add(grid_of(l), grid_of(r), -1);
    for (const auto& [pos, ax] : g.axes)
      if (!ax.affine()) fail(e.span, fmt::format("the mask '{}' of a quasi-affine index grid", print_expr(e)));
    Constraint con;
    con.expr = g.base;
    for (const auto& [pos, ax] : g.axes) con.axes[pos] += ax.coef;
    con.cmp = it->second;
    AValue p;
    p.k = K::Pred;
    p.pred = {con};
    return p;
  }
  if (it != cmps.end() && (op == CmpKind::Eq || op == CmpKind::Ne)) {
    // Tuples (shape checks), strings, dtypes: equal when every item is.
    std::function<std::optional<bool>(const AValue&, const AValue&)> same = [&](const AValue& x, const AValue& y)
        -> std::optional<bool> {
      if (x.k == K::Set && y.k == K::Set) {  // the same items, in any order
        auto one_way = [&](const AValue& p, const AValue& q) -> std::optional<bool> {
          for (const auto& a : p.items) {
            bool found = false;
            for (const auto& b : q.items) {
              auto s = same(a, b);
              if (!s) return std::nullopt;
              found = found || *s;
            }
            if (!found) return false;
          }
          return true;
        };
        auto ab = one_way(x, y), ba = one_way(y, x);
        if (!ab || !ba) return std::nullopt;
        return *ab && *ba;
      }
      if ((x.k == K::Tuple || x.k == K::List) && (y.k == K::Tuple || y.k == K::List)) {
        if (x.items.size() != y.items.size()) return false;
        for (size_t i = 0; i < x.items.size(); ++i) {
          auto s = same(x.items[i], y.items[i]);
          if (!s || !*s) return s;
        }
        return true;
      }
      if ((x.k == K::Int || x.k == K::ParDim) && (y.k == K::Int || y.k == K::ParDim)) {
        IExpr d = x.i - y.i;
        if (d.is_constant()) return d.constant() == 0;
        return std::nullopt;
      }
      if (x.k == y.k && (x.k == K::Str || x.k == K::DType || x.k == K::Symbol)) return x.s == y.s;
      // A dtype equals its name (`x.dtype == "float32"`, numpy's dtype comparison; 6: every
      // spelling of a dtype compares equal).
      if ((x.k == K::DType && y.k == K::Str) || (x.k == K::Str && y.k == K::DType)) return x.s == y.s;
      // A string is never a number or None.
      auto number = [](const AValue& v) {
        return v.k == K::Int || v.k == K::Float || v.k == K::Bool || v.k == K::None;
      };
      if ((x.k == K::Str && number(y)) || (y.k == K::Str && number(x))) return false;
      if (x.k == K::Float && y.k == K::Float) return x.f == y.f;
      if (x.k == K::None || y.k == K::None) return x.k == y.k;
      return std::nullopt;
    };
    if (auto s = same(l, r)) return AValue::of_bool(op == CmpKind::Eq ? *s : !*s);
  }
  // A comparison with a tile is the element-wise nl function (`d <= 8.0` is nl.less_equal(d, 8.0)).
  bool lt = l.k == K::Tile || l.k == K::Int || l.k == K::Float, rt = r.k == K::Tile || r.k == K::Int || r.k == K::Float;
  if (it != cmps.end() && (l.k == K::Tile || r.k == K::Tile) && lt && rt) {
    static const std::map<Cmp, const char*> fns = {{Cmp::Lt, "nl.less"},    {Cmp::Le, "nl.less_equal"},
                                                   {Cmp::Gt, "nl.greater"}, {Cmp::Ge, "nl.greater_equal"},
                                                   {Cmp::Eq, "nl.equal"},   {Cmp::Ne, "nl.not_equal"}};
    return apply(fns.at(it->second), {{"x", l}, {"y", r}}, {{"x", &le}, {"y", &re}}, e, nullptr);
  }
  if (op == CmpKind::In || op == CmpKind::NotIn) {  // `"rows" in cfg`, `c in (0, 3)`, `x.dtype in (np.float32, "float32")`
    auto items = host_items(r);
    if (items && (l.k == K::Str || l.k == K::Bool || (l.k == K::Int && l.i.is_constant()))) {
      AValue probe = AValue::of_kind(K::Dict);
      probe.keys = *items;
      probe.items = *items;
      bool in = dict_get(probe, l) != nullptr;
      return AValue::of_bool(op == CmpKind::In ? in : !in);
    }
    // Other host values (dtypes, tuples, None): Python's `==` with each item, in order.
    if (items && (l.k == K::DType || l.k == K::Tuple || l.k == K::None || l.k == K::Float || l.k == K::Symbol)) {
      bool in = false;
      for (const AValue& item : *items) {
        if (item.k == K::Tile || item.k == K::Grid || item.k == K::Pred || item.k == K::Cond) {
          fail(e.span, fmt::format("the comparison '{}' (a member that is not a host value)", print_expr(e)));
        }
        AValue eq = compare(l, CmpKind::Eq, item, le, re, e);
        if (eq.k != K::Bool) fail(e.span, fmt::format("the comparison '{}'", print_expr(e)));
        if (eq.b) {
          in = true;
          break;
        }
      }
      return AValue::of_bool(op == CmpKind::In ? in : !in);
    }
  }
  if (op == CmpKind::Is || op == CmpKind::IsNot) {
    bool is = l.k == r.k && (l.k == K::None || l.s == r.s);
    return AValue::of_bool(op == CmpKind::Is ? is : !is);
  }
  fail(e.span, fmt::format("the comparison '{}'", print_expr(e)));
}

}  // namespace loopnest::detail
