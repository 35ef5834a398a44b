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
#include <algorithm>
#include <cmath>
#include <functional>
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
    case K::HostArray:  // its values when it keeps them (lift_fold.cpp host_array)
      if (v.s.empty()) return std::nullopt;
      return v.s;
    case K::Module:
      if (v.s == "numpy") return "__np";
      if (v.s == "math") return "__math";
      return std::nullopt;
    case K::Func:
      // A function of the builtins, math or numpy bound to a name (`from math import log2`).
      if (v.s.rfind("builtins.", 0) == 0) return v.s.substr(9);
      if (v.s.rfind("numpy.", 0) == 0) return "__np." + v.s.substr(6);
      if (v.s.rfind("math.", 0) == 0) return "__math." + v.s.substr(5);
      // An NKI function as a value (`ACTS = {"exp": nl.exp}`, `act = nl.tanh`): passed, never called
      // by a fold (the tile it would be applied to is never a host value).
      if (v.s.rfind("nki.language.", 0) == 0 && v.s.find('.', 13) == std::string::npos) return "__nl." + v.s.substr(13);
      return std::nullopt;
    default: return std::nullopt;
  }
}

namespace {

// Up to this many elements a host array keeps its values as numpy source (AValue::s), so an
// expression reading it folds again (`w = np.arange(N) / N` then `w.reshape(1, N)`); a larger
// one keeps its shape and dtype only (a constant folded in one expression still lifts).
constexpr int64_t kMaxArrayLiteral = 4096;

// A numpy array made at trace time (`np.arange(N, dtype=np.float32).reshape(1, N) / N`, a module
// constant built with numpy): a host array of the form, for nl.shared_constant (an HBM constant
// tensor, its statement printed back as written).
AValue host_array(const tensor::Array& a) {
  AValue h = AValue::of_kind(K::HostArray);
  for (int64_t d : a.shape()) h.items.push_back(AValue::of_int(d));
  tensor::DType dt = a.dtype();
  h.type = std::string(tensor::name(dt));
  bool numpy_dtype = dt == tensor::DType::Float32 || dt == tensor::DType::Float64 || dt == tensor::DType::Int32 ||
                     dt == tensor::DType::Int64 || dt == tensor::DType::UInt8;
  if (!numpy_dtype || a.size() > kMaxArrayLiteral) return h;
  bool ints = dt != tensor::DType::Float32 && dt != tensor::DType::Float64;
  std::string values;
  std::vector<int64_t> idx(a.shape().size(), 0);
  for (int64_t n = 0; n < a.size(); ++n) {
    double x = a.get(idx);
    values += (ints ? std::to_string(static_cast<int64_t>(x)) : py_float(x)) + ", ";
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < a.shape()[d]) break;
      idx[d] = 0;
    }
  }
  std::string shape = "(";
  for (int64_t d : a.shape()) shape += std::to_string(d) + ", ";
  h.s = fmt::format("__np.array([{}], dtype=__np.{}).reshape({}))", values, h.type, shape);
  return h;
}

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
  if (auto* a = v.as<lib::NdArrayObj>(); a && !a->is_scalar) return host_array(a->array);
  if (auto* b = v.as<BuiltinObj>()) {
    if (b->name.rfind("nl.", 0) == 0) return AValue::of_kind(K::Func, "nki.language." + b->name.substr(3));
    if (b->name.rfind("np.", 0) == 0) return AValue::of_kind(K::Func, "numpy." + b->name.substr(3));
    if (b->name.rfind("math.", 0) == 0) return AValue::of_kind(K::Func, b->name);
    return std::nullopt;
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
  if (e.kind == ExprKind::NamedExpr) return false;
  if (e.kind == ExprKind::Lambda) {
    // A lambda written in the folded expression itself (`sorted(range(T), key=lambda i: -i)`): its
    // parameters are its own names; the names its body reads must be host values like any other.
    auto& code = *static_cast<const LambdaExpr&>(e).code;
    if (!code.lambda_body) return false;
    Names body;
    if (!collect_names(*code.lambda_body, body)) return false;
    std::set<std::string> params;
    for (const auto& p : code.params) {
      if (p.default_value) return false;
      params.insert(p.name);
    }
    for (const auto& x : body.bare)
      if (!params.count(x) && !body.bound.count(x)) n.bare.insert(x);
    for (const auto& x : body.attr_only)
      if (!params.count(x)) n.attr_only.insert(x);
    n.bound.insert(params.begin(), params.end());
    return true;
  }
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

// A tile in a folded host expression: what its stand-in (`__Tile`) says of its shape, dtype, ndim and
// itemsize. Its truth, comparison, text, arithmetic, items and hash are no trace-time values (device
// work, or an error of the kernel), so any of them fails the fold and the lift's own refusal stands:
// `all(t.shape == (M, N) for t in (grad, m, v))` folds, `x == y` or `if x:` on tiles never does.
struct FoldedTile : Object {
  Value held;  // the __Tile instance
  explicit FoldedTile(Value h) : held(std::move(h)) {}
  std::string type_name() const override { return "tensor"; }
  [[noreturn]] static void refuse(const char* what) {
    throw NkiError(ErrorKind::Type, fmt::format("a tile's {} is no trace-time value", what));
  }
  std::string repr() const override { refuse("text"); }
  bool truthy() const override { refuse("truth"); }
  Value get_attr(Interpreter& in, std::string_view name) override { return held.object()->get_attr(in, name); }
  bool has_attr(std::string_view name) const override { return held.object()->has_attr(name); }
  std::optional<Value> compare(Interpreter&, CmpOp, const Value&, bool) override { refuse("comparison"); }
  std::optional<Value> binary_op(Interpreter&, BinOp, const Value&, bool) override { refuse("arithmetic"); }
  std::optional<Value> unary_op(Interpreter&, UnOp) override { refuse("arithmetic"); }
  Value get_item(Interpreter&, const Value&) override { refuse("items"); }
  std::unique_ptr<Iterator> iter(Interpreter&) override { refuse("iteration"); }
  std::optional<int64_t> length() const override { refuse("length"); }
  size_t hash() const override { refuse("hash"); }
};

// The module the fold's source takes `guard` from: guard(__Tile(...)) is the tile a host expression reads.
ObjectPtr fold_tiles_module(Interpreter&) {
  auto m = std::make_shared<ModuleObj>("accelopt_fold_tiles");
  m->attrs["guard"] = Value(std::make_shared<BuiltinObj>("guard", [](Interpreter&, CallArgs& a) {
    return Value(std::make_shared<FoldedTile>(a.args.at(0)));
  }));
  return m;
}

}  // namespace

// The preamble of every fold's source: the modules it may name and the tile stand-in
// (tile_stand_in: `__guard(__Tile(shape, dtype, itemsize))`).
const char* const kFoldPreamble =
    "import numpy as __np\nimport math as __math\nimport neuronxcc.nki.language as __nl\n"
    "import neuronxcc.nki.isa as __nisa\n"
    "from accelopt_fold_tiles import guard as __guard\n"
    "class __Tile:\n"
    "    def __init__(self, shape, dtype, itemsize):\n"
    "        self.shape = shape\n        self.dtype = dtype\n        self.ndim = len(shape)\n"
    "        self.itemsize = itemsize\n";

// The modules a fold's interpreter offers: the builtin ones and the tile guard.
void install_fold_modules(Interpreter& in) {
  lib::install_builtin_modules(in);
  in.register_module("accelopt_fold_tiles", fold_tiles_module);
}

namespace {

// Runs `src` (a module binding `__fold_result`) in a fresh interpreter under `limits`: the value it
// binds, as the lift's value; nullopt when it fails or binds none.
std::optional<AValue> run_fold(const std::string& src, const char* file_name, const char* module, const Limits& limits) {
  try {
    Interpreter in(limits);
    install_fold_modules(in);
    auto file = std::make_shared<SourceFile>(SourceFile{file_name, src});
    auto mod = in.load_module(file, module);
    auto it = mod->attrs.find("__fold_result");
    if (it == mod->attrs.end()) return std::nullopt;
    return from_value(it->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

// A tile read by a host expression stands in as its shape, dtype, ndim and itemsize (what
// `all(d % 128 == 0 for d in x.shape)` asks of it), guarded (FoldedTile): any other use of it fails
// the fold.
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
  return fmt::format("__guard(__Tile({}), {}, {}))", shape, *dt, tensor::itemsize(*dtype));
}

std::optional<AValue> Lifter::host_fold(const Expr& e) {
  Names names;
  if (!collect_names(e, names)) return std::nullopt;
  std::set<std::string> read = names.bare;
  read.insert(names.attr_only.begin(), names.attr_only.end());
  std::string src = kFoldPreamble;
  for (const std::string& name : read) {
    if (name.rfind("__", 0) == 0) return std::nullopt;
    const AValue* v = nullptr;
    if (auto it = env.find(name); it != env.end()) v = &it->second;
    else if (auto g = globals.find(name); g != globals.end()) v = &g->second;
    if (!v) continue;  // a builtin (or a name the interpreter does not know either: no fold)
    // A list a loop fills with tiles holds numbers only until its items are bound
    // (lift_filled_list.cpp): never folded as the numbers.
    if (auto f = filled.find(name); f != filled.end() && f->second.depth == inline_depth) return std::nullopt;
    // A tile only through its shape and dtype, also when named bare (an item of the tuple a
    // comprehension walks): its values are not known at trace time, and its guard fails the fold on
    // any use but those attributes (a tile's truth, comparison or arithmetic is device work).
    std::optional<std::string> lit = v->k != K::Tile ? py_literal(*v) : tile_stand_in(*v);
    if (!lit) {
      if (names.bound.count(name)) continue;  // a comprehension's own variable shadowing a kernel name
      return std::nullopt;
    }
    src += fmt::format("{} = {}\n", name, *lit);
  }
  src += "__fold_result = (" + print_expr(e) + ")\n";
  Limits limits;
  limits.max_steps = 1'000'000;
  limits.max_bytes = 64ull << 20;
  limits.max_seconds = 5;
  return run_fold(src, "<trace-time value>", "__fold__", limits);
}

std::optional<AValue> format_fstring(const FStringExpr& f, const std::vector<std::optional<std::string>>& fields) {
  // Each field bound to a name, the f-string written again over the names (the interpreter's
  // f-strings format as Python's).
  std::string src = "import numpy as __np\nimport math as __math\nimport neuronxcc.nki.language as __nl\n";
  std::string text;
  size_t i = 0;
  for (const auto& part : f.parts) {
    std::string lit = py_string(part.literal);  // quoted and escaped
    lit = lit.substr(1, lit.size() - 2);
    for (char ch : lit) text += ch == '{' ? "{{" : ch == '}' ? "}}" : std::string(1, ch);
    if (!part.expr) continue;
    if (i >= fields.size() || !fields[i]) return std::nullopt;
    src += fmt::format("__f{} = {}\n", i, *fields[i]);
    text += fmt::format("{{__f{}", i++);
    if (part.conversion) text += std::string("!") + part.conversion;
    if (!part.spec.empty()) text += ":" + part.spec;
    text += "}";
  }
  src += "__fold_result = f'" + text + "'";
  src += "\n";
  Limits limits;
  limits.max_steps = 100'000;
  limits.max_seconds = 5;
  return run_fold(src, "<trace-time f-string>", "__fstring__", limits);
}

// ---- try statements of host code ----
//
// `try: f = FACTORS[name] except KeyError: f = 1.0` (nki-language.md 3.1: ordinary Python runs at
// trace time) is decided at trace time, by a Python exception the lift's own evaluator has no
// counterpart for (its failures are refusals, not KeyErrors). A try statement made only of host
// code runs here, in the language core, on the host values of the names it reads, exactly as the
// kernel's trace runs it; what it binds (and a helper's `return` inside it) comes back as host
// values. A try reading a tile's values, an NKI module, a helper function or a loop-dependent
// integer does device work or depends on the loop: refused, naming the name.

namespace {

struct TryNames {
  Names reads;
  std::vector<std::string> bound;  // in order, each once
  std::string refused;             // a statement kind the fold does not run ("" when none)
};

void bind_name(const Expr& target, TryNames& n) {
  if (target.kind == ExprKind::Name) {
    const std::string& id = static_cast<const NameExpr&>(target).id;
    if (std::find(n.bound.begin(), n.bound.end(), id) == n.bound.end()) n.bound.push_back(id);
    return;
  }
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    for (const auto& e : static_cast<const SequenceExpr&>(target).elts) bind_name(*e, n);
    return;
  }
  if (target.kind == ExprKind::Starred) {
    bind_name(*static_cast<const StarredExpr&>(target).value, n);
    return;
  }
  // `d[k] = v`, `obj.x = v`: the container changes, which the name then holds.
  if (target.kind == ExprKind::Subscript) bind_name(*static_cast<const SubscriptExpr&>(target).value, n);
  else if (target.kind == ExprKind::Attribute) bind_name(*static_cast<const AttributeExpr&>(target).value, n);
}

bool read_expr(const Expr* e, TryNames& n) { return !e || collect_names(*e, n.reads); }

bool walk_try_block(const Block& b, TryNames& n);

bool walk_try_stmt(const Stmt& s, TryNames& n) {
  switch (s.kind) {
    case StmtKind::Expr: return read_expr(static_cast<const ExprStmt&>(s).value.get(), n);
    case StmtKind::Assign: {
      auto& a = static_cast<const AssignStmt&>(s);
      for (const auto& t : a.targets) {
        if (!read_expr(t.get(), n)) return false;
        bind_name(*t, n);
      }
      return read_expr(a.value.get(), n);
    }
    case StmtKind::AugAssign: {
      auto& a = static_cast<const AugAssignStmt&>(s);
      bind_name(*a.target, n);
      return read_expr(a.target.get(), n) && read_expr(a.value.get(), n);
    }
    case StmtKind::AnnAssign: bind_name(*static_cast<const AnnAssignStmt&>(s).target, n); return true;
    case StmtKind::Return: return read_expr(static_cast<const ReturnStmt&>(s).value.get(), n);
    case StmtKind::Raise: {
      auto& r = static_cast<const RaiseStmt&>(s);
      return read_expr(r.exc.get(), n) && read_expr(r.cause.get(), n);
    }
    case StmtKind::Assert: {
      auto& a = static_cast<const AssertStmt&>(s);
      return read_expr(a.test.get(), n) && read_expr(a.msg.get(), n);
    }
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      return read_expr(i.test.get(), n) && walk_try_block(i.body, n) && walk_try_block(i.orelse, n);
    }
    case StmtKind::For: {
      auto& f = static_cast<const ForStmt&>(s);
      bind_name(*f.target, n);
      return read_expr(f.iter.get(), n) && walk_try_block(f.body, n) && walk_try_block(f.orelse, n);
    }
    case StmtKind::While: {
      auto& w = static_cast<const WhileStmt&>(s);
      return read_expr(w.test.get(), n) && walk_try_block(w.body, n) && walk_try_block(w.orelse, n);
    }
    case StmtKind::Try: {
      auto& t = static_cast<const TryStmt&>(s);
      if (!walk_try_block(t.body, n) || !walk_try_block(t.orelse, n) || !walk_try_block(t.finalbody, n)) return false;
      for (const auto& h : t.handlers) {
        // Python unbinds `as e` when its handler ends: not a name the try leaves bound.
        if (!read_expr(h.type.get(), n) || !walk_try_block(h.body, n)) return false;
      }
      return true;
    }
    case StmtKind::Pass: case StmtKind::Break: case StmtKind::Continue: return true;
    default:
      n.refused = s.kind == StmtKind::FunctionDef ? "a function definition"
                  : s.kind == StmtKind::With     ? "a with statement"
                  : s.kind == StmtKind::ClassDef ? "a class definition"
                  : s.kind == StmtKind::Global   ? "a global / nonlocal declaration"
                  : s.kind == StmtKind::Delete   ? "a del statement"
                                                 : "an import";
      return false;
  }
}

bool walk_try_block(const Block& b, TryNames& n) {
  for (const auto& s : b)
    if (!walk_try_stmt(*s, n)) return false;
  return true;
}


// The file's lines [from, to] as written (a module-level statement: no indentation to change).
std::string source_lines(const std::string& text, uint32_t from, uint32_t to) {
  std::string out;
  uint32_t line = 1;
  size_t pos = 0;
  while (pos <= text.size() && line <= to) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (line >= from) out += text.substr(pos, end - pos) + "\n";
    pos = end + 1;
    ++line;
  }
  return out;
}

// A handler that would catch what a stand-in tile raises when the try uses it as more than its
// shape and dtype (a TypeError / AttributeError of the stand-in, where the trace does device work).
bool catches_broadly(const TryStmt& t) {
  for (const auto& h : t.handlers) {
    if (!h.type) return true;
    std::string ty = print_expr(*h.type);
    for (const char* broad : {"Exception", "BaseException", "TypeError", "AttributeError"})
      if (ty.find(broad) != std::string::npos) return true;
  }
  return false;
}

std::string indented_block(const Block& b, int indent) {
  return b.empty() ? std::string(size_t(indent) * 4, ' ') + "pass\n" : print_block(b, indent);
}

// The try statement as Python source at `indent` (4 spaces a level).
std::string try_source(const TryStmt& t, int indent) {
  std::string pad(size_t(indent) * 4, ' ');
  std::string out = pad + "try:\n" + indented_block(t.body, indent + 1);
  for (const ExceptHandler& h : t.handlers) {
    out += pad + "except";
    if (h.type) out += h.type->kind == ExprKind::Tuple ? " (" + print_expr(*h.type) + ")" : " " + print_expr(*h.type);
    if (h.target) out += " as " + static_cast<const NameExpr&>(*h.target).id;
    out += ":\n" + indented_block(h.body, indent + 1);
  }
  if (!t.orelse.empty()) out += pad + "else:\n" + indented_block(t.orelse, indent + 1);
  if (!t.finalbody.empty()) out += pad + "finally:\n" + indented_block(t.finalbody, indent + 1);
  return out;
}

// A try statement or a loop as Python source at `indent`.
std::string statement_source(const Stmt& s, int indent) {
  if (s.kind == StmtKind::Try) return try_source(static_cast<const TryStmt&>(s), indent);
  std::string pad(size_t(indent) * 4, ' ');
  const Block* body = nullptr;
  const Block* orelse = nullptr;
  std::string out;
  if (s.kind == StmtKind::While) {
    auto& w = static_cast<const WhileStmt&>(s);
    out = pad + "while " + print_expr(*w.test) + ":\n";
    body = &w.body, orelse = &w.orelse;
  } else {
    auto& f = static_cast<const ForStmt&>(s);
    out = pad + "for " + print_expr(*f.target) + " in " + print_expr(*f.iter) + ":\n";
    body = &f.body, orelse = &f.orelse;
  }
  out += indented_block(*body, indent + 1);
  if (!orelse->empty()) out += pad + "else:\n" + indented_block(*orelse, indent + 1);
  return out;
}

}  // namespace

bool has_jump(const Block& b) {
  for (const auto& s : b) {
    switch (s->kind) {
      case StmtKind::Break: case StmtKind::Continue: return true;
      case StmtKind::If:
        if (has_jump(static_cast<const IfStmt&>(*s).body) || has_jump(static_cast<const IfStmt&>(*s).orelse)) return true;
        break;
      case StmtKind::For: if (has_jump(static_cast<const ForStmt&>(*s).body)) return true; break;
      case StmtKind::While: if (has_jump(static_cast<const WhileStmt&>(*s).body)) return true; break;
      case StmtKind::With: if (has_jump(static_cast<const WithStmt&>(*s).body)) return true; break;
      default: break;
    }
  }
  return false;
}

std::optional<AValue> Lifter::host_statement(const Stmt& s, std::vector<Node>& out) {
  const std::string what = s.kind == StmtKind::Try     ? "a try statement"
                           : s.kind == StmtKind::While ? "a while loop with break / continue"
                                                       : "a for loop with break / continue";
  TryNames names;
  if (!walk_try_stmt(s, names))
    fail(s.span, fmt::format("{} holding {} (only host statements run at trace time)", what,
                             names.refused.empty() ? "a lambda, a := or np.random" : names.refused));
  const bool broad = s.kind == StmtKind::Try && catches_broadly(static_cast<const TryStmt&>(s));
  std::string src = kFoldPreamble;
  // The module's imports of the standard library (typing annotations of a helper it calls).
  for (const auto& st : module->body) {
    if (st->kind != StmtKind::Import && st->kind != StmtKind::ImportFrom) continue;
    auto& im = static_cast<const ImportStmt&>(*st);
    std::string root = (st->kind == StmtKind::ImportFrom ? im.module : im.names.front().name);
    root = root.substr(0, root.find('.'));
    if (root == "typing" || root == "math" || root == "numpy" || root == "functools" || root == "dataclasses")
      src += source_lines(module->file->text, st->span.line, last_line(*st));
  }
  std::map<std::string, const AValue*> done;  // name -> the value the fold gives it (null: none)
  std::string device_read;  // a tile the try reads bare (a stand-in): what a raise then means
  std::string defs;
  std::vector<const FunctionDefStmt*> queued;  // host helpers whose names are resolved after the try's
  // Names the try reads see the kernel's (or the helper's) names; a module-level host helper it
  // calls runs as written, its own names the module's.
  std::function<void(const std::string&, bool, bool)> resolve = [&](const std::string& name, bool local, bool bare) {
    if (name.rfind("__", 0) == 0) fail(s.span, fmt::format("{} reading the name '{}'", what, name));
    const AValue* v = nullptr;
    if (auto it = env.find(name); local && it != env.end()) v = &it->second;
    else if (auto g = globals.find(name); g != globals.end()) v = &g->second;
    if (auto d = done.find(name); d != done.end()) {
      // One namespace runs the fold: a helper reading the module's name the kernel shadows differs.
      if (v && d->second && v != d->second && py_literal(*v) != py_literal(*d->second))
        fail(s.span, fmt::format("{} reading '{}' both as the kernel's and as the module's", what, name));
      return;
    }
    done[name] = v;
    if (!v) return;  // a builtin (KeyError, len, ...), a helper's local or a name the try binds first
    if (v->k == K::Func && v->s.rfind("user.", 0) == 0 && !v->attrs) {
      const FunctionDefStmt* def = nullptr;
      for (const auto& st : module->body)
        if (st->kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt&>(*st).code->name == v->s.substr(5))
          def = static_cast<const FunctionDefStmt*>(st.get());
      if (def && def->decorators.empty() && !closures.count(def->code->name)) {
        TryNames inner;
        for (const auto& p : def->code->params)
          if (p.default_value && !read_expr(p.default_value.get(), inner)) def = nullptr;
        if (def && !walk_try_block(def->code->body, inner))
          fail(s.span, fmt::format("{} calling '{}', which holds {} (only host statements run at trace time)", what,
                                   name, inner.refused.empty() ? "a lambda, a := or np.random" : inner.refused));
        if (def) {
          queued.push_back(def);
          return;
        }
      }
    }
    std::optional<std::string> lit = py_literal(*v);
    // nki.language / nki.isa for their functions as values and their enums (`act = nl.tanh`): a call
    // of one on a host value raises outside a kernel, which only a handler catching broadly could
    // mistake for the trace's own path.
    if (v->k == K::Module && (v->s == "nki.language" || v->s == "nki.isa") && !broad)
      lit = v->s == "nki.language" ? "__nl" : "__nisa";
    // A tile stands in by its shape and dtype; used as more (device work), the stand-in raises, which
    // only a handler catching broadly could mistake for the trace's own path.
    if (v->k == K::Tile && (!bare || !broad)) lit = tile_stand_in(*v);
    if (v->k == K::Tile && bare && lit && device_read.empty()) device_read = name;
    if (lit) {
      src += fmt::format("{} = {}\n", name, *lit);
      return;
    }
    if (local && std::find(names.bound.begin(), names.bound.end(), name) != names.bound.end() &&
        !names.reads.bare.count(name) && !names.reads.attr_only.count(name))
      return;  // only bound here: its old value is not read
    fail(s.span, fmt::format("{} reading '{}' ({}: it lifts when it runs only on host values, decided at trace time)",
                             what, name, v->k == K::Tile ? "a tile whose values it uses"
                                   : v->k == K::Func || v->k == K::Method ? "a function of the kernel or an NKI API"
                                   : v->k == K::Module                    ? "a module"
                                   : depends_on_loops(*v) ? "a value depending on a loop of the kernel"
                                                          : "a value the trace cannot print"));
  };
  for (const auto& n : names.reads.bare) resolve(n, true, true);
  for (const auto& n : names.reads.attr_only) resolve(n, true, false);
  for (const auto& n : names.bound) resolve(n, true, false);
  for (size_t q = 0; q < queued.size(); ++q) {
    const FunctionDefStmt* def = queued[q];
    TryNames inner;
    for (const auto& p : def->code->params)
      if (p.default_value) read_expr(p.default_value.get(), inner);
    walk_try_block(def->code->body, inner);
    std::set<std::string> params;
    for (const auto& p : def->code->params) params.insert(p.name);
    for (const auto& n : inner.reads.bare)
      if (!params.count(n)) resolve(n, false, true);
    for (const auto& n : inner.reads.attr_only)
      if (!params.count(n)) resolve(n, false, false);
    defs += source_lines(module->file->text, def->span.line, last_line(*def));
  }
  src += defs + "__fell = False\n";
  src += "def __try():\n    global __fell";
  for (const std::string& b : names.bound) src += ", " + b;
  src += "\n" + statement_source(s, 1) + "    __fell = True\n__result = __try()\n";
  // The interpreter clears its modules when it goes: the values are read while it lives.
  Limits limits;
  limits.max_steps = 1'000'000;
  limits.max_bytes = 64ull << 20;
  limits.max_seconds = 5;
  Interpreter in(limits);
  install_fold_modules(in);
  std::shared_ptr<ModuleObj> mod;
  try {
    auto file = std::make_shared<SourceFile>(SourceFile{"<trace-time try>", src});
    mod = in.load_module(file, "__try__");
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (auto* nk = dynamic_cast<const NkiError*>(&e)) why = nk->diag.message;
    // A tile stood in by its shape: what raised is the tile work (or a read of its values) the
    // stand-in cannot do, not the kernel.
    if (!device_read.empty())
      fail(s.span, fmt::format("{} doing tile work on '{}' (only host code runs at trace time{})", what, device_read,
                               s.kind == StmtKind::For ? "; a loop doing tile work lifts a continue or break only as the last "
                                                         "statement of an if at the top of its body"
                                                       : ""));
    fail(s.span, fmt::format("{} that raises for these arguments ({})", what, why));
  }
  Node n = new_node(NodeKind::Meta, s);
  n.meta = MetaKind::Binding;
  for (const std::string& b : names.bound) {
    auto it = mod->attrs.find(b);
    if (it == mod->attrs.end()) continue;  // not bound on the path taken
    auto v = from_value(it->second);
    if (!v) fail(s.span, fmt::format("{} binding '{}' to a value that is not a number, string, dtype or a tuple or "
                                     "list of them", what, b));
    env[b] = *v;
    n.binds.push_back(b);
  }
  out.push_back(std::move(n));
  auto f = mod->attrs.find("__fell");
  if (f != mod->attrs.end() && f->second.is_bool() && f->second.as_bool()) return std::nullopt;
  auto r = mod->attrs.find("__result");
  std::optional<AValue> v = r == mod->attrs.end() ? std::nullopt : from_value(r->second);
  if (!v) fail(s.span, fmt::format("{} returning a value that is not a number, string, dtype or a tuple or list of them", what));
  return v;
}

}  // namespace loopnest::detail
