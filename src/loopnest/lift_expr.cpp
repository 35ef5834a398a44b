// The lifter's expression evaluator: Python values of the kernel body as abstract values
// (lifter.h). Integers stay symbolic in the loop variables; index grids, slices and integers
// subscripting a tensor compose into access maps (lift_subscript.cpp); operators are
// lift_operators.cpp's, comprehensions lift_comprehension.cpp's, modules and their attributes
// lift_modules.cpp's.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/host_builtins.h"
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
  if (is_host_builtin(id)) return AValue::of_kind(K::Func, "builtins." + id);
  return AValue::of_kind(K::Unknown);
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
      if (id == "Ellipsis") return AValue::of_kind(K::Ellipsis);  // the builtin name of `...`
      // A module-level name whose value did not lift there: defined, so say why it is unusable.
      if (auto r = module_refusals.find(id); r != module_refusals.end()) {
        std::string why = r->second.message;
        if (why.rfind("cannot lift ", 0) == 0) why = why.substr(12);
        fail(e.span, fmt::format("the name '{}' (its module-level value did not lift: {}, at line {})", id, why,
                                 r->second.loc.line));
      }
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
      // A slice's or range's data attributes (`cols.stop - cols.start` in a helper given the slice),
      // held as [start, stop, step] as Python holds them (a slice's missing parts are None).
      if ((base.k == K::Slice || base.k == K::Range) && (a.attr == "start" || a.attr == "stop" || a.attr == "step"))
        return base.items[a.attr == "start" ? 0 : a.attr == "stop" ? 1 : 2];
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
    case ExprKind::Subscript: return subscript_value(e);
    case ExprKind::Dict: return dict_display(static_cast<const DictExpr&>(e));
    case ExprKind::Lambda: return lambda(static_cast<const LambdaExpr&>(e));
    case ExprKind::Tuple: case ExprKind::List: {
      std::vector<AValue> items;
      for (auto& x : static_cast<const SequenceExpr&>(e).elts) items.push_back(eval(*x));
      AValue t = AValue::of_tuple(std::move(items));
      if (e.kind == ExprKind::List) t.k = K::List;
      return t;
    }
    case ExprKind::UnaryOp: return unary_value(e);
    case ExprKind::BinOp: return binop_value(e);
    case ExprKind::Compare: return compare_chain(e);
    case ExprKind::BoolOp: return boolop_value(e);
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

}  // namespace loopnest::detail
