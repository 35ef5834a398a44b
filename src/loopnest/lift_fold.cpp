// Host expressions the lifter's own evaluator does not model, folded by the language core: the
// kernel's Python runs at trace time (nki-language.md 3.1), so an expression made only of numbers,
// strings, tuples, dtypes and the builtins / math / numpy has one value, and the interpreter that
// runs the kernel computes it exactly as the kernel sees it (`all(k > 0 for k in ks)`,
// `np.finfo(np.float32).max`, `math.log2(F)`, `isinstance(F, int)`, `np.prod(x.shape)`).
//
// The fold is a fallback: Lifter::eval tries it only where its own evaluation failed, and only on
// an expression whose names are all host values of the lift (or names the expression binds
// itself, comprehension targets); a name holding a tile, a loop-dependent integer or an NKI module
// refuses the fold, so nothing that makes device work is ever run here. The value comes back
// only when it is a host value again (a number, a string, a bool, None, a dtype, a tuple or list
// of them); otherwise the original refusal stands.
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "nki/ast_walk.h"
#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/modules.h"
#include "tensor/dtype.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

std::string py_string(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    switch (ch) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += ch;
    }
  }
  return out + "'";
}

std::string py_float(double x) {
  if (std::isnan(x)) return "float('nan')";
  if (std::isinf(x)) return x > 0 ? "float('inf')" : "float('-inf')";
  std::string s = fmt::format("{:.17g}", x);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

// Python source for a host value of the lift, or nullopt when it is not one (a tile, a grid, a
// loop-dependent integer, a module other than numpy / math, ...). Modules of the fold's source:
// __np (numpy), __math, __nl (nki.language, for its dtypes only).
std::optional<std::string> py_literal(const AValue& v) {
  switch (v.k) {
    case K::None: return "None";
    case K::Bool: return v.b ? "True" : "False";
    case K::Int:
      if (!v.i.is_constant() || !v.type.empty()) return std::nullopt;
      return std::to_string(v.i.constant());
    case K::Float:
      if (v.type.empty() || v.type == "float") return py_float(v.f);
      if (!tensor::parse_dtype(v.type)) return std::nullopt;
      return fmt::format("__nl.{}({})", v.type, py_float(v.f));
    case K::Str: return py_string(v.s);
    case K::DType: {
      auto d = tensor::parse_dtype(v.s);
      if (!d) return std::nullopt;
      std::string name(tensor::name(*d));
      return "__nl." + (name == "bool" ? std::string("bool_") : name);
    }
    case K::Tuple:
    case K::List: {
      std::string out = v.k == K::Tuple ? "(" : "[";
      for (const AValue& x : v.items) {
        auto s = py_literal(x);
        if (!s) return std::nullopt;
        out += *s + ", ";
      }
      return out + (v.k == K::Tuple ? ")" : "]");
    }
    case K::Dict: {
      std::string out = "{";
      for (size_t i = 0; i < v.keys.size(); ++i) {
        auto key = py_literal(v.keys[i]), value = py_literal(v.items[i]);
        if (!key || !value) return std::nullopt;
        out += *key + ": " + *value + ", ";
      }
      return out + "}";
    }
    case K::Range: {  // a constant range(start, stop, step)
      std::string out = "range(";
      for (const AValue& x : v.items) {
        auto b = py_literal(x);
        if (!b) return std::nullopt;
        out += *b + ", ";
      }
      return out + ")";
    }
    case K::Module:
      if (v.s == "numpy") return "__np";
      if (v.s == "math") return "__math";
      return std::nullopt;
    case K::Func:
      // A function of the builtins, math or numpy bound to a name (`from math import log2`).
      if (v.s.rfind("builtins.", 0) == 0) return v.s.substr(9);
      if (v.s.rfind("numpy.", 0) == 0) return "__np." + v.s.substr(6);
      if (v.s.rfind("math.", 0) == 0) return "__math." + v.s.substr(5);
      return std::nullopt;
    default: return std::nullopt;
  }
}

namespace {

// The value computed by the interpreter as a host value of the lift, or nullopt.
std::optional<AValue> from_value(const Value& v) {
  if (v.is_none()) return AValue::of_kind(K::None);
  if (v.is_bool()) return AValue::of_bool(v.as_bool());
  if (v.is_int()) return AValue::of_int(v.as_int());
  if (v.is_float()) return AValue::of_float(v.as_float());
  if (auto* s = v.as<StrObj>()) return AValue::of_kind(K::Str, s->s);
  if (auto* d = v.as<lib::DTypeObj>()) return AValue::of_kind(K::DType, std::string(tensor::name(d->dtype)));
  if (auto* a = v.as<lib::NdArrayObj>(); a && a->is_scalar) {
    auto s = to_python_scalar(v);
    if (!s) return std::nullopt;
    if (s->is_bool()) return AValue::of_bool(s->as_bool());
    if (s->is_int()) return AValue::of_int(s->as_int());
    // A typed numpy scalar keeps its format (np.float32(...) operands); a float64 is a Python float.
    tensor::DType dt = a->array.dtype();
    std::string type = dt == tensor::DType::Float64 ? "" : std::string(tensor::name(dt));
    return AValue::of_float(s->as_float(), type);
  }
  const std::vector<Value>* items = nullptr;
  K kind = K::Tuple;
  if (auto* t = v.as<TupleObj>()) items = &t->items;
  if (auto* l = v.as<ListObj>()) items = &l->items, kind = K::List;
  if (!items) return std::nullopt;
  AValue out = AValue::of_kind(kind);
  for (const Value& x : *items) {
    auto y = from_value(x);
    if (!y) return std::nullopt;
    out.items.push_back(*y);
  }
  return out;
}

// The names an expression reads, those it reads only for a tile's shape / dtype / ndim /
// itemsize (`x.shape`), and those it binds itself (comprehension targets). A lambda (a function
// made at trace time) and np.random are not folded.
struct Names {
  std::set<std::string> bare, attr_only, bound;
};

bool collect_names(const Expr& e, Names& n) {
  if (e.kind == ExprKind::Lambda || e.kind == ExprKind::NamedExpr) return false;
  if (e.kind == ExprKind::Name) n.bare.insert(static_cast<const NameExpr&>(e).id);
  if (e.kind == ExprKind::Attribute) {
    auto& a = static_cast<const AttributeExpr&>(e);
    // np.random draws differ from run to run in Python: never a trace-time constant of the form.
    if (a.attr == "random") return false;
    if (a.value->kind == ExprKind::Name &&
        (a.attr == "shape" || a.attr == "dtype" || a.attr == "ndim" || a.attr == "itemsize")) {
      n.attr_only.insert(static_cast<const NameExpr&>(*a.value).id);
      return true;
    }
  }
  if (e.kind == ExprKind::ListComp || e.kind == ExprKind::SetComp || e.kind == ExprKind::DictComp ||
      e.kind == ExprKind::GeneratorExp) {
    for (const auto& g : static_cast<const ComprehensionExpr&>(e).generators) {
      Names targets;
      if (g.target && !collect_names(*g.target, targets)) return false;
      n.bound.insert(targets.bare.begin(), targets.bare.end());
    }
  }
  bool ok = true;
  for_each_child(const_cast<Expr&>(e), [&](ExprPtr& child) { ok = ok && collect_names(*child, n); });
  return ok;
}

}  // namespace

// A tile read by a host expression stands in as its shape, dtype, ndim and itemsize (what
// `all(d % 128 == 0 for d in x.shape)` asks of it); any other use of it fails the fold.
std::optional<std::string> Lifter::tile_stand_in(const AValue& tile) const {
  std::string shape = "(";
  for (const IExpr& d : tile.access.tile_shape()) {
    if (!d.is_constant()) return std::nullopt;
    shape += std::to_string(d.constant()) + ", ";
  }
  auto dtype = tensor::parse_dtype(k.tensor(tile.access.tensor).dtype);
  if (!dtype) return std::nullopt;
  auto dt = py_literal(AValue::of_kind(K::DType, k.tensor(tile.access.tensor).dtype));
  if (!dt) return std::nullopt;
  return fmt::format("__Tile({}), {}, {})", shape, *dt, tensor::itemsize(*dtype));
}

std::optional<AValue> Lifter::host_fold(const Expr& e) {
  Names names;
  if (!collect_names(e, names)) return std::nullopt;
  std::set<std::string> read = names.bare;
  read.insert(names.attr_only.begin(), names.attr_only.end());
  std::string src =
      "import numpy as __np\nimport math as __math\nimport neuronxcc.nki.language as __nl\n"
      "class __Tile:\n"
      "    def __init__(self, shape, dtype, itemsize):\n"
      "        self.shape = shape\n        self.dtype = dtype\n        self.ndim = len(shape)\n"
      "        self.itemsize = itemsize\n";
  for (const std::string& name : read) {
    if (name.rfind("__", 0) == 0) return std::nullopt;
    const AValue* v = nullptr;
    if (auto it = env.find(name); it != env.end()) v = &it->second;
    else if (auto g = globals.find(name); g != globals.end()) v = &g->second;
    if (!v) continue;  // a builtin (or a name the interpreter does not know either: no fold)
    // A tile only through its shape and dtype: its values are not known at trace time (a tile's
    // truth, comparison or arithmetic is device work, never folded).
    std::optional<std::string> lit =
        v->k != K::Tile ? py_literal(*v) : names.bare.count(name) ? std::nullopt : tile_stand_in(*v);
    if (!lit) {
      if (names.bound.count(name)) continue;  // a comprehension's own variable shadowing a kernel name
      return std::nullopt;
    }
    src += fmt::format("{} = {}\n", name, *lit);
  }
  src += "__fold_result = (" + print_expr(e) + ")\n";
  try {
    Limits limits;
    limits.max_steps = 1'000'000;
    limits.max_bytes = 64ull << 20;
    limits.max_seconds = 5;
    Interpreter in(limits);
    lib::install_builtin_modules(in);
    auto file = std::make_shared<SourceFile>(SourceFile{"<trace-time value>", src});
    auto mod = in.load_module(file, "__fold__");
    auto it = mod->attrs.find("__fold_result");
    if (it == mod->attrs.end()) return std::nullopt;
    return from_value(it->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace loopnest::detail
