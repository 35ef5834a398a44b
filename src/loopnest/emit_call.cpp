// A statement printed from the form (emitter.h): its calls in the kernel's dialect (module aliases,
// positional or keyword arguments as the author passed them), operands, shapes, masks, symbols and
// numbers; the operands a move left alone copied as written.
#include "loopnest/emitter.h"
#include "loopnest/operators.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "loopnest/api.h"

namespace loopnest::detail {

namespace {

std::string number_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "-float('inf')";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

}  // namespace

std::string Emitter::str(const IExpr& e) const {
  return e.str([this](int v) {
    auto it = program_ids_.find(v);
    return it != program_ids_.end() ? it->second : k_.var_name(v);
  });
}

std::string Emitter::statement(const Node& n) {
  if (n.ops.empty()) throw EmitError("a changed statement without operations");
  const Op& root = n.ops.back();
  for (size_t i = 0; i + 1 < n.ops.size(); ++i) {
    int t = made_tile(n.ops[i]);
    if (t < 0 || !k_.tensor(t).name.empty()) throw EmitError("a statement whose inner operation has its own destination");
  }
  const ApiSpec* spec = find_api(root.api);
  if (root.api == "assign") {
    const Arg* src = root.arg("src");
    if (!src || !root.dst) throw EmitError("an assignment without source or destination");
    std::string dst = kept(root.dst_origin) ? source(*root.dst_origin) : dst_text(root);
    return dst + (root.accumulate ? " += " : " = ") + operand(src->value, n);
  }
  if (root.result >= 0) {
    // `blocks.append(nl.load(...))`: the result goes into the list as the author wrote it.
    if (std::string list = appended_list(n); !list.empty()) return list + ".append(" + call(root, n) + ")";
    const std::string& name = k_.tensor(root.result).name;
    return name.empty() ? call(root, n) : name + " = " + call(root, n);  // a result nobody reads
  }
  if (spec && spec->creates && root.dst) {
    // `outs.append(nl.ndarray(...))`: the allocation goes into the list as the author wrote it.
    if (std::string list = appended_list(n); !list.empty()) return list + ".append(" + call(root, n) + ")";
    const Tensor& t = k_.tensor(root.dst->tensor);
    return t.name + " = " + call(root, n);
  }
  if (root.dst_first || root.cls == OpClass::Store || root.cls == OpClass::DmaCopy) return call(root, n);
  if (!root.dst) return call(root, n);
  std::string dst = kept(root.dst_origin) ? source(*root.dst_origin) : dst_text(root);
  return dst + (root.accumulate ? " += " : " = ") + call(root, n);
}

// `a * b` where the author wrote the operator and the op is still its function of two operands,
// nothing else passed (a move adding a mask or a dtype prints the call); nullopt otherwise.
std::optional<std::string> Emitter::operator_text(const Op& op, const Node& n) {
  const Arg* x = op.arg("x");
  const Arg* y = op.arg("y");
  if (op.dst_first || !x || op.args.size() != (y ? 2u : 1u)) return std::nullopt;
  std::string_view symbol = written_operator(op.origin_api, op.api, static_cast<int>(op.args.size()));
  if (symbol.empty()) return std::nullopt;
  // `-(a - b)`, `-(-1.0)`: the operand of a unary minus parenthesized as a base under `**`.
  if (!y) return std::string(symbol) + operator_operand(x->value, n, "**");
  return fmt::format("{} {} {}", operator_operand(x->value, n, symbol), symbol, operator_operand(y->value, n, symbol));
}

// An operand of an operator, in parentheses when it is an expression of operators itself (an inner
// operator `(a - m) * s`, the author's `(1.0 / 1024)` whose span leaves the parentheses out, a
// negative number under `**`).
std::string Emitter::operator_operand(const Operand& o, const Node& n, std::string_view symbol) {
  std::string text = operand(o, n);
  int depth = 0;
  bool top_level_space = false;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    top_level_space = top_level_space || (c == ' ' && depth == 0);
  }
  bool negative_base = symbol == "**" && !text.empty() && text[0] == '-';
  return top_level_space || negative_base ? "(" + text + ")" : text;
}

std::string Emitter::call(const Op& op, const Node& n) {
  if (auto text = operator_text(op, n)) return *text;
  bool same_call = kept(op.origin) && op.api == op.origin_api;
  // The author's identity activation, held as a copy (lift_call.cpp identity_copy_activation),
  // prints as that activation: on NeuronCore-v2 the newer API's tensor_copy may not run on the
  // Scalar Engine (nki-language.md 12.2), and the activation does.
  const bool copy_activation = op.api == "nisa.tensor_copy" && op.origin_api == "nisa.activation";
  std::string callee = same_call ? source(*op.origin->func) : api_text(copy_activation ? op.origin_api : op.api);
  std::string args;
  // Arguments the author passed by position stay positional while the call is still the author's
  // function (an opened helper's `nl.max(t, axis=1)`, an operand a move rewrote), up to the first
  // one given by name: a new or replaced call is written with keywords throughout.
  bool keywords_only = op.origin_api.empty() || op.api != op.origin_api;
  auto add = [&](const std::string& name, const std::string& text, bool positional) {
    bool pos = positional && !keywords_only;
    if (!pos) keywords_only = true;
    args += (args.empty() ? "" : ", ") + (pos ? text : name + "=" + text);
  };
  // The destination stays positional where the author wrote it so: it was the call's first
  // positional argument (also after a move rewrote its index and dropped its origin).
  auto dst_positional = [&] {
    if (!op.origin || op.origin->args.empty()) return false;
    if (op.dst_origin) return op.dst_origin == op.origin->args.front().get();
    for (const auto& kw : op.origin->keywords)
      if (kw.name == "dst") return false;
    return true;
  };
  if (op.dst_first && op.dst && op.api != "nl.store")
    add("dst", kept(op.dst_origin) ? source(*op.dst_origin) : dst_text(op), dst_positional());
  if (op.api == "nl.store" && op.dst)
    add("dst", kept(op.dst_origin) ? source(*op.dst_origin) : dst_text(op), dst_positional() || !same_call);
  if (copy_activation) add("op", symbol_text("copy"), false);
  const Tensor* created = nullptr;
  const ApiSpec* spec = find_api(op.api);
  if (spec && spec->creates && op.dst) created = &k_.tensor(op.dst->tensor);
  for (const Arg& a : op.args) {
    if (created && a.name == "shape") {
      add("shape", shape_text(*created, op), a.positional);
      continue;
    }
    // A mask that holds everywhere is no constraint of the form (live_mask.h): a changed statement
    // prints without it (its author's text may name what is no longer in scope).
    if (a.name == "mask" && op.mask.empty() && !a.positional && a.value.kind != Operand::Kind::None) continue;
    if (a.name == "mask" && !kept(a.value.origin) && !op.mask.empty()) {
      add("mask", mask_text(op), a.positional);
      continue;
    }
    if (copy_activation && a.name == "engine") continue;  // no engine= in the activation: it runs on ScalarE
    add(copy_activation && a.name == "src" ? "data" : a.name, operand(a.value, n), a.positional);
  }
  return callee + "(" + args + ")";
}

std::string Emitter::operand(const Operand& o, const Node& n) {
  // The result of an inner call of the statement is that call, written from its op (it may
  // have changed while the operand's source text still shows the old call).
  if (o.kind == Operand::Kind::Tile && k_.tensor(o.access.tensor).name.empty())
    for (const Op& inner : n.ops)
      if (made_tile(inner) == o.access.tensor) return call(inner, n);
  // `(scale := 2.0)`: the span leaves out the parentheses an assignment expression needs.
  if (kept(o.origin) && (!o.origin_moved || o_.moved_origins))
    return o.origin->kind == ExprKind::NamedExpr ? "(" + source(*o.origin) + ")" : source(*o.origin);
  switch (o.kind) {
    case Operand::Kind::Tile:
      if (o.number_when)
        return fmt::format("({} if {} else {})", number_text(o), bool_text(*o.number_when),
                           access(o.access, false, o.written, o.written_access.get()));
      return access(o.access, false, o.written, o.written_access.get());
    case Operand::Kind::Number: return number_text(o);
    case Operand::Kind::Symbol: return symbol_text(o.symbol);
    case Operand::Kind::Shape: {
      std::vector<const Expr*> elems = written_dims(o, o.shape.size());
      std::string s = "(";
      for (size_t i = 0; i < o.shape.size(); ++i)
        s += (i ? ", " : "") + (elems.empty() || !(o.shape[i] == (*o.written_shape)[i]) ? str(o.shape[i]) : source(*elems[i]));
      return s + (o.shape.size() == 1 ? ",)" : ")");
    }
    case Operand::Kind::None: return "None";
    case Operand::Kind::Other: return o.text;
    case Operand::Kind::Index: return index_text(o);
    case Operand::Kind::Grid:
      return grid_text(o.grid, static_cast<size_t>(o.grid_rank));
  }
  return "None";
}

std::string Emitter::shape_text(const Tensor& t, const Op& op) {
  std::string par = alias("nki.language") + ".par_dim";
  // The author's par_dim spelling, from the shape as written (or the call, once a move resized it).
  const Expr* written = nullptr;
  if (const Arg* s = op.arg("shape"); s && s->value.origin) written = s->value.origin;
  else if (op.origin) written = op.origin;
  if (written) {
    std::string orig = source(*written);
    if (orig.find("nl.par_dim") == std::string::npos && orig.find("par_dim(") != std::string::npos) par = "par_dim";
  }
  std::string s = "(";
  size_t first = t.list_levels();  // a list element is declared without the lists' dims
  const Arg* shape_arg = op.arg("shape");
  std::vector<const Expr*> elems = shape_arg ? written_dims(shape_arg->value, t.shape.size() - first) : std::vector<const Expr*>{};
  for (size_t d = first; d < t.shape.size(); ++d) {
    std::string dim = str(t.shape[d]);
    // A dim the move left as it was: the author's text (`BLOCK_M`, `nl.par_dim(P)`).
    if (!elems.empty() && t.shape[d] == (*shape_arg->value.written_shape)[d - first]) {
      s += (d > first ? ", " : "") + source(*elems[d - first]);
      continue;
    }
    if (t.dim_text.size() == t.shape.size() && !t.dim_text[d].second.empty() && t.dim_text[d].first == t.shape[d])
      dim = t.dim_text[d].second;
    int pd = t.partition_dim - static_cast<int>(first);
    if (pd > 0 && static_cast<int>(d - first) == pd) dim = fmt::format("{}({})", par, dim);
    s += (d > first ? ", " : "") + dim;
  }
  return s + (t.shape.size() - first == 1 ? ",)" : ")");
}

// A mask a move rewrote, from its constraints: `(2048*t - 8192 + nl.arange(2048)[None, :] < 0)`,
// each axis an index grid of the op's tile (the destination's, else its first tile operand's).
std::string Emitter::mask_text(const Op& op) {
  std::vector<IExpr> shape;
  if (op.dst) shape = op.dst->tile_shape();
  for (size_t i = 0; shape.empty() && i < op.args.size(); ++i)
    if (op.args[i].value.kind == Operand::Kind::Tile) shape = op.args[i].value.access.tile_shape();
  std::string out;
  const std::vector<int64_t> dense = dense_shape(shape);
  for (const Constraint& c : op.mask) {
    DimIndex lhs{c.expr, {}};
    for (const auto& [axis, coeff] : c.axes) {
      if (axis < 0 || static_cast<size_t>(axis) >= shape.size()) throw EmitError("a mask on an axis the tile does not have");
      lhs.terms.push_back({axis, shape[static_cast<size_t>(axis)], coeff});
    }
    out += (out.empty() ? "" : " & ") + fmt::format("({} {} 0)", grid_text(lhs, shape.size(), dense), symbol(c.cmp));
  }
  return op.mask.size() == 1 ? out : "(" + out + ")";
}

std::string Emitter::loop_header(const Loop& l) {
  std::string fn = l.kind == LoopKind::Range ? "range"
                   : l.dynamic && l.kind == LoopKind::Sequential ? alias("nki.language") + ".dynamic_range"
                                                                 : alias("nki.language") + "." + to_string(l.kind);
  std::string range = l.start.is_constant() && l.start.constant() == 0 && l.step == 1
                          ? str(l.stop)
                          : fmt::format("{}, {}{}", str(l.start), str(l.stop), l.step == 1 ? "" : fmt::format(", {}", l.step));
  return fmt::format("for {} in {}({}):", l.var, fn, range);
}

std::string Emitter::alias(const std::string& module) {
  auto it = k_.dialect.alias.find(module);
  if (it != k_.dialect.alias.end()) return it->second;
  needed_.insert(module);
  return module == "nki.isa" ? "nisa" : module == "nki.language" ? "nl" : module == "numpy" ? "np" : module;
}

std::string Emitter::api_text(const std::string& api) {
  if (api.rfind("nl.", 0) == 0) return alias("nki.language") + api.substr(2);
  if (api.rfind("nisa.", 0) == 0) return alias("nki.isa") + api.substr(4);
  if (api.rfind("np.", 0) == 0) return alias("numpy") + api.substr(2);
  return api;
}

std::string Emitter::symbol_text(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos) {
    if (s == "True" || s == "False") return s;
    return alias("nki.language") + "." + s;
  }
  std::string kind = s.substr(0, colon), name = s.substr(colon + 1);
  if (kind == "engine") return alias("nki.isa") + "." + name + "_engine";
  if (kind == "dtype") return alias("nki.language") + "." + (name == "bool" ? "bool_" : name);  // nl.bool_
  if (kind == "buffer") return alias("nki.language") + "." + name;
  if (kind.rfind("isa.", 0) == 0) return alias("nki.isa") + "." + kind.substr(4) + "." + name;  // nisa.reduce_cmd.X
  return name;
}

// An integer operand of the loop variables; a condition (`k > 0`, an integer 1 / 0 on the form)
// as the comparison, a `float(...)` as written.
std::string Emitter::index_text(const Operand& o) {
  if (o.number_type == "float") return "float(" + str(o.index) + ")";
  if (o.number_type != "bool") return str(o.index);
  return bool_text(o.index);
}

// A bool expression of the loop variables (1 / 0): the comparison it selects on, as written.
std::string Emitter::bool_text(const IExpr& e) {
  if (e.is_constant()) return e.constant() ? "True" : "False";
  if (e.constant() == 0 && e.terms().size() == 1) {
    const auto& [term, coeff] = e.terms().begin()->second;
    if (term.kind == TermKind::Select && coeff == 1 && term.args[2] == IExpr(1) && term.args[3] == IExpr(0))
      return fmt::format("{} {} {}", str(term.args[0]), symbol(term.cmp), str(term.args[1]));
  }
  return "bool(" + str(e) + ")";
}

std::string Emitter::number_text(const Operand& o) {
  if (!o.number_type.empty()) {
    std::string np = alias("numpy");
    std::string v = o.number_type.find("int") != std::string::npos && o.number == std::floor(o.number)
                        ? fmt::format("{}", static_cast<int64_t>(o.number))
                        : number_literal(o.number);
    return fmt::format("{}.dtype({}.{}).type({})", np, np, o.number_type, v);
  }
  return o.integer ? fmt::format("{}", static_cast<int64_t>(o.number)) : number_literal(o.number);
}

// What a view statement binds `name` to: the access, or, where the access is the whole view the
// statement names (`g_col = g.reshape((K, 1))` of an opened helper, printed from the form), the
// reshape it is (its own name would print `g_col = g_col`).
std::string Emitter::view_binding(const Access& a, const std::string& name) {
  std::string text = access(a);
  const Tensor& t = k_.tensor(a.tensor);
  if (text != name || t.name != name || t.role != TensorRole::View || t.base < 0) return text;
  return reshape_text(t);
}

std::string Emitter::reshape_text(const Tensor& t) {
  std::string shape;
  for (size_t d = 0; d < t.shape.size(); ++d) shape += (d ? ", " : "") + str(t.shape[d]);
  return fmt::format("{}.reshape(({}{}))", tensor_text(k_.tensor(t.base)), shape, t.shape.size() == 1 ? "," : "");
}

// A tensor's name in the text: views of HBM tensors are written as the reshape they are.
std::string Emitter::tensor_text(const Tensor& t) {
  if (!t.name.empty()) return t.name;
  if (t.role == TensorRole::View && t.base >= 0) return reshape_text(t);
  throw EmitError("an access to an unnamed tensor outside its statement");
}

}  // namespace loopnest::detail
