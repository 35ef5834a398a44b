// Statement execution, assignment, and calls of user-defined functions.
#include <fmt/core.h>

#include "nki/ast_walk.h"
#include "nki/core_ops.h"
#include "nki/core_types.h"
#include "nki/interp_impl.h"

namespace nki::detail {

[[noreturn]] void rethrow_at(InterpState& st, const Span& span) {
  try {
    throw;
  } catch (NkiError& e) {
    if (!e.diag.loc.known()) e.diag.loc = st.loc(span);
    throw;
  }
}

bool truth(InterpState& st, const Value& v, const Span& span) {
  if (!v.is_object()) return v.truthy();
  st.current_span = &span;
  try {
    return v.object()->truthy();
  } catch (...) {
    rethrow_at(st, span);
  }
}

void store_name(InterpState& st, const NameExpr& n, const Value& v, Frame& f) {
  switch (n.scope) {
    case NameScope::Local: f.slots[n.index] = v; return;
    case NameScope::Cell: static_cast<CellObj&>(*f.slots[n.index].object()).value = v; return;
    case NameScope::Free: f.fn->closure[n.index]->value = v; return;
    case NameScope::Global: f.env->globals[n.index] = v; return;
    default: st.fail(ErrorKind::Internal, n.span, fmt::format("cannot assign to unresolved name '{}'", n.id));
  }
}

namespace {

// Values of an unpacking source; tuples and lists without copying through an iterator.
std::vector<Value> unpack_source(InterpState& st, const Value& v, const Span& span) {
  if (auto* t = v.as<TupleObj>()) return t->items;
  if (auto* l = v.as<ListObj>()) return l->items;
  std::vector<Value> out;
  try {
    auto it = iterate(st, v);
    for (Value x; it->next(x);) {
      core::check_container_size(out.size() + 1, sizeof(Value));
      out.push_back(std::move(x));
    }
  } catch (...) {
    rethrow_at(st, span);
  }
  return out;
}

void assign_unpack(InterpState& st, const SequenceExpr& target, const Value& v, Frame& f) {
  std::vector<Value> items = unpack_source(st, v, target.span);
  const auto& elts = target.elts;
  size_t star = elts.size();
  for (size_t i = 0; i < elts.size(); ++i)
    if (elts[i]->kind == ExprKind::Starred) star = i;
  if (star == elts.size()) {
    if (items.size() > elts.size())
      st.fail(ErrorKind::Value, target.span, fmt::format("too many values to unpack (expected {})", elts.size()));
    if (items.size() < elts.size())
      st.fail(ErrorKind::Value, target.span,
              fmt::format("not enough values to unpack (expected {}, got {})", elts.size(), items.size()));
    for (size_t i = 0; i < elts.size(); ++i) assign(st, *elts[i], items[i], f);
    return;
  }
  size_t after = elts.size() - star - 1;
  if (items.size() < elts.size() - 1)
    st.fail(ErrorKind::Value, target.span,
            fmt::format("not enough values to unpack (expected at least {}, got {})", elts.size() - 1, items.size()));
  for (size_t i = 0; i < star; ++i) assign(st, *elts[i], items[i], f);
  std::vector<Value> middle(items.begin() + star, items.end() - after);
  assign(st, *static_cast<const StarredExpr&>(*elts[star]).value, make_list(std::move(middle)), f);
  for (size_t i = 0; i < after; ++i) assign(st, *elts[star + 1 + i], items[items.size() - after + i], f);
}

void assign_subscript(InterpState& st, const SubscriptExpr& s, const Value& v, Frame& f) {
  Value obj = eval(st, *s.value, f);
  Value index = eval(st, *s.index, f);
  if (!obj.is_object())
    st.fail(ErrorKind::Type, s.span, fmt::format("'{}' object does not support item assignment", obj.type_name()));
  st.current_span = &s.span;
  try {
    obj.object()->set_item(st.in, index, v);
  } catch (...) {
    rethrow_at(st, s.span);
  }
}

// `target op= value`.
void aug_assign(InterpState& st, const AugAssignStmt& a, Frame& f) {
  const Expr& target = *a.target;
  if (target.kind == ExprKind::Name) {
    Value current = eval(st, target, f);
    Value v = eval(st, *a.value, f);
    st.current_span = &a.span;
    try {
      if (auto updated = inplace_op(st, a.op, current, v)) return store_name(st, static_cast<const NameExpr&>(target), *updated, f);
      return store_name(st, static_cast<const NameExpr&>(target), binary_op(st, a.op, current, v), f);
    } catch (...) {
      rethrow_at(st, a.span);
    }
  }
  if (target.kind == ExprKind::Attribute) {
    auto& attr = static_cast<const AttributeExpr&>(target);
    Value obj = eval(st, *attr.value, f);
    Value v = eval(st, *a.value, f);
    st.current_span = &a.span;
    try {
      Value current = get_attribute(st, obj, attr.attr);
      std::optional<Value> updated = inplace_op(st, a.op, current, v);
      obj.object()->set_attr(st.in, attr.attr, updated ? *updated : binary_op(st, a.op, current, v));
    } catch (...) {
      rethrow_at(st, a.span);
    }
    return;
  }
  auto& s = static_cast<const SubscriptExpr&>(target);
  Value obj = eval(st, *s.value, f);
  Value index = eval(st, *s.index, f);
  Value v = eval(st, *a.value, f);
  if (!obj.is_object())
    st.fail(ErrorKind::Type, s.span, fmt::format("'{}' object is not subscriptable", obj.type_name()));
  st.current_span = &a.span;
  try {
    if (obj.object()->aug_set_item(st.in, a.op, index, v)) return;
    Value current = obj.object()->get_item(st.in, index);
    std::optional<Value> updated = inplace_op(st, a.op, current, v);
    obj.object()->set_item(st.in, index, updated ? *updated : binary_op(st, a.op, current, v));
  } catch (...) {
    rethrow_at(st, a.span);
  }
}

Flow exec_for(InterpState& st, const ForStmt& s, Frame& f) {
  Value iterable = eval(st, *s.iter, f);
  auto body = [&](const Value& item) -> Flow {
    st.charge(1);
    assign(st, *s.target, item, f);
    return exec_block(st, s.body, f);
  };
  if (auto* r = iterable.as<RangeObj>()) {  // fast path: no iterator object, no allocation
    int64_t value = r->start, step = r->step;
    // A library may record the loop (a kernel's `for i in range(n)`: nki/range_loops.h).
    struct Observed {
      std::unique_ptr<RangeLoopObserver> o;
      ~Observed() {
        if (o) o->end();
      }
    } observed{st.range_loop_observer ? st.range_loop_observer(st.in, r->size()) : nullptr};
    for (int64_t left = r->size(); left > 0; --left, value += step) {
      if (observed.o) observed.o->iteration();
      Flow fl = body(Value::from_int(value));
      if (fl == Flow::Break) return Flow::Normal;
      if (fl == Flow::Return) return fl;
    }
    if (observed.o) observed.o->end(), observed.o.reset();
    return s.orelse.empty() ? Flow::Normal : exec_block(st, s.orelse, f);
  }
  st.current_span = &s.iter->span;
  std::unique_ptr<Iterator> it;
  try {
    it = iterate(st, iterable);
  } catch (...) {
    rethrow_at(st, s.iter->span);
  }
  for (Value item;;) {
    bool more;
    try {
      more = it->next(item);
    } catch (...) {
      rethrow_at(st, s.iter->span);
    }
    if (!more) break;
    Flow fl = body(item);
    if (fl == Flow::Break) return Flow::Normal;
    if (fl == Flow::Return) return fl;
  }
  return s.orelse.empty() ? Flow::Normal : exec_block(st, s.orelse, f);
}

Flow exec_while(InterpState& st, const WhileStmt& s, Frame& f) {
  for (;;) {
    if (!truth(st, eval(st, *s.test, f), s.test->span)) return s.orelse.empty() ? Flow::Normal : exec_block(st, s.orelse, f);
    Flow fl = exec_block(st, s.body, f);
    if (fl == Flow::Break) return Flow::Normal;
    if (fl == Flow::Return) return fl;
    st.charge(s.cost);
  }
}

std::string source_text(InterpState& st, const Span& span) {
  if (span.line != span.end_line) return {};
  std::string line = (*st.current_file)->line_text(span.line);
  if (span.col == 0 || span.end_col <= span.col || span.end_col - 1 > line.size()) return {};
  return line.substr(span.col - 1, span.end_col - span.col);
}

void exec_assert(InterpState& st, const AssertStmt& a, Frame& f) {
  if (truth(st, eval(st, *a.test, f), a.test->span)) return;
  std::string message;
  if (a.msg) {
    message = "assertion failed: " + eval(st, *a.msg, f).str();
  } else {
    std::string text = source_text(st, a.test->span);
    message = text.empty() ? "assertion failed" : "assertion failed: " + text;
  }
  st.fail(ErrorKind::Assertion, a.test->span, std::move(message));
}

// Looks up every name an annotation uses, as Python does when it evaluates the annotation at the
// def: an undefined name (`x: nt.mutable_tensor` without importing nt) is Python's NameError.
// Only the names are looked up: what the annotation builds from them (`nt.tensor[128, 512]`,
// `tuple[int, int]`) has no effect on the run.
void check_annotation_names(InterpState& st, Expr& e, Frame& f) {
  if (e.kind == ExprKind::Name) {
    try {
      eval(st, e, f);
    } catch (...) {
      rethrow_at(st, e.span);
    }
    return;
  }
  if (opens_scope(e)) return;  // never seen in annotations
  for_each_child(e, [&](ExprPtr& child) { check_annotation_names(st, *child, f); });
}

void exec_function_def(InterpState& st, const FunctionDefStmt& d, Frame& f) {
  std::vector<Value> decorators;
  for (const auto& dec : d.decorators) decorators.push_back(eval(st, *dec, f));
  Value fn = make_function(st, d.code, f);
  if (d.evaluates_annotations) {
    for (const Parameter& p : d.code->params)
      if (p.annotation) check_annotation_names(st, *p.annotation, f);
    if (d.returns) check_annotation_names(st, *d.returns, f);
  }
  for (size_t i = decorators.size(); i-- > 0;) {
    CallArgs args;
    args.args.push_back(fn);
    st.current_span = &d.decorators[i]->span;
    try {
      fn = call_value(st, decorators[i], args);
    } catch (...) {
      rethrow_at(st, d.decorators[i]->span);
    }
  }
  store_name(st, *d.target, fn, f);
}

void exec_import(InterpState& st, const ImportStmt& s, Frame& f) {
  for (const ImportAlias& alias : s.names) {
    try {
      // Harness code (argparse, os, torch): bound to a placeholder, never loaded.
      std::string imported = s.kind == StmtKind::Import ? alias.name : s.module;
      if (host_only_import(st, imported)) {
        std::string module = s.kind == StmtKind::Import && alias.asname.empty() ? imported.substr(0, imported.find('.'))
                                                                                  : imported;
        std::string path = s.kind == StmtKind::Import ? module : imported + "." + alias.name;
        store_name(st, static_cast<const NameExpr&>(*alias.target), st.host_module_binder(module, path), f);
        continue;
      }
      if (s.kind == StmtKind::Import) {
        Value m = import_module(st, alias.name, alias.asname.empty());
        store_name(st, static_cast<const NameExpr&>(*alias.target), m, f);
        continue;
      }
      Value m = import_module(st, s.module, false);
      Value v;
      std::string full = s.module + "." + alias.name;
      if (m.object()->has_attr(alias.name)) v = get_attribute(st, m, alias.name);
      else v = import_module(st, full, false);
      store_name(st, static_cast<const NameExpr&>(*alias.target), v, f);
    } catch (...) {
      rethrow_at(st, alias.span);
    }
  }
}

namespace {

// `t: nt.tensor[128, F] = value`: NKI checks the value's shape against the annotation when it
// traces the kernel (err_annotation_shape_mismatch, nki-language.md 11). Python itself never
// evaluates a local's annotation, so one that does not evaluate (a name defined nowhere) or is no
// tensor shape (`n: int = 3`, `typing.List[int]`) is left alone, as Python leaves it.
void check_shape_annotation(InterpState& st, const Expr& ann, const Value& v, Frame& f) {
  Value a;
  try {
    a = eval(st, ann, f);
  } catch (NkiError&) {
    return;
  }
  if (!a.is_object() || a.object()->type_name() != "nki tensor annotation") return;
  if (!v.is_object() || !v.object()->has_attr("shape")) return;
  Value want = a.object()->get_attr(st.in, "shape");
  Value got = v.object()->get_attr(st.in, "shape");
  std::vector<Value> w = want.is(ObjType::Tuple) ? static_cast<const TupleObj&>(*want.object()).items
                                                           : std::vector<Value>{want};
  if (!got.is(ObjType::Tuple)) return;
  const auto& g = static_cast<const TupleObj&>(*got.object()).items;
  auto text = [](const std::vector<Value>& d) {
    std::string s;
    for (const auto& x : d) s += (s.empty() ? "" : ", ") + (x.is_int() ? std::to_string(x.as_int()) : std::string("?"));
    return "[" + s + "]";
  };
  bool same = w.size() == g.size();
  for (size_t i = 0; same && i < w.size(); ++i)
    if (w[i].is_int() && g[i].is_int() && w[i].as_int() != g[i].as_int()) same = false;
  if (!same)
    st.fail(ErrorKind::Rule, ann.span,
            fmt::format("err_annotation_shape_mismatch: the value has shape {}, the annotation says {}", text(g), text(w)));
}

}  // namespace

Flow exec_stmt(InterpState& st, const Stmt& s, Frame& f) {
  switch (s.kind) {
    case StmtKind::Expr: eval(st, *static_cast<const ExprStmt&>(s).value, f); return Flow::Normal;
    case StmtKind::Assign: {
      auto& a = static_cast<const AssignStmt&>(s);
      Value v = eval(st, *a.value, f);
      if (a.annotation && a.annotation->kind == ExprKind::Subscript) check_shape_annotation(st, *a.annotation, v, f);
      for (const auto& t : a.targets) assign(st, *t, v, f);
      return Flow::Normal;
    }
    case StmtKind::AugAssign: aug_assign(st, static_cast<const AugAssignStmt&>(s), f); return Flow::Normal;
    case StmtKind::Return: {
      auto& r = static_cast<const ReturnStmt&>(s);
      f.ret = r.value ? eval(st, *r.value, f) : Value();
      return Flow::Return;
    }
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      if (truth(st, eval(st, *i.test, f), i.test->span)) return exec_block(st, i.body, f);
      return exec_block(st, i.orelse, f);
    }
    case StmtKind::For: return exec_for(st, static_cast<const ForStmt&>(s), f);
    case StmtKind::While: return exec_while(st, static_cast<const WhileStmt&>(s), f);
    case StmtKind::Break: return Flow::Break;
    case StmtKind::Continue: return Flow::Continue;
    case StmtKind::Pass: return Flow::Normal;
    case StmtKind::FunctionDef: exec_function_def(st, static_cast<const FunctionDefStmt&>(s), f); return Flow::Normal;
    case StmtKind::Import:
    case StmtKind::ImportFrom: exec_import(st, static_cast<const ImportStmt&>(s), f); return Flow::Normal;
    case StmtKind::Assert: exec_assert(st, static_cast<const AssertStmt&>(s), f); return Flow::Normal;
    case StmtKind::AnnAssign: return Flow::Normal;  // a bare annotation binds nothing
    case StmtKind::Global: return Flow::Normal;     // resolved at load time
    case StmtKind::With: return exec_with(st, static_cast<const WithStmt&>(s), f);
    case StmtKind::Raise: exec_raise(st, static_cast<const RaiseStmt&>(s), f);
    case StmtKind::Try: return exec_try(st, static_cast<const TryStmt&>(s), f);
    case StmtKind::ClassDef: exec_class_def(st, static_cast<const ClassDefStmt&>(s), f); return Flow::Normal;
    case StmtKind::Delete: exec_delete(st, static_cast<const DeleteStmt&>(s), f); return Flow::Normal;
  }
  return Flow::Normal;
}

[[noreturn]] void arity_error(const FunctionCode& code, const std::string& message, const std::string& keyword = {}) {
  NkiError e(ErrorKind::Type, fmt::format("{}() {}", code.name, message));
  e.diag.keyword = keyword;
  throw e;
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    out += "'" + names[i] + "'";
  }
  return out;
}

// "t, scale": the parameters a call can name, for an unknown keyword's message.
std::string keyword_parameters(const FunctionCode& code) {
  std::string out;
  for (const Parameter& p : code.params)
    if (!p.positional_only && (p.kind == ParamKind::Positional || p.kind == ParamKind::KeywordOnly))
      out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

// Binds call arguments to parameter slots with Python's rules and messages.
void bind_parameters(const FunctionObj& fn, CallArgs& args, Value* slots) {
  const FunctionCode& code = *fn.code;
  const auto& params = code.params;
  size_t positional = 0;
  const Parameter* var_args = nullptr;
  const Parameter* var_kwargs = nullptr;
  for (const Parameter& p : params) {
    if (p.kind == ParamKind::Positional) ++positional;
    if (p.kind == ParamKind::VarArgs) var_args = &p;
    if (p.kind == ParamKind::VarKwargs) var_kwargs = &p;
  }
  if (args.args.size() > positional && !var_args)
    arity_error(code, fmt::format("takes {} positional argument{} but {} {} given", positional, positional == 1 ? "" : "s",
                                  args.args.size(), args.args.size() == 1 ? "was" : "were"));
  size_t given = std::min(args.args.size(), positional);
  for (size_t i = 0; i < given; ++i) slots[params[i].slot] = std::move(args.args[i]);
  if (var_args)
    slots[var_args->slot] = make_tuple(std::vector<Value>(std::make_move_iterator(args.args.begin() + long(given)),
                                                          std::make_move_iterator(args.args.end())));
  std::shared_ptr<DictObj> extra;
  if (var_kwargs) extra = std::make_shared<DictObj>();
  for (auto& [name, value] : args.kwargs) {
    const Parameter* target = nullptr;
    for (const Parameter& p : params)
      if (p.name == name && !p.positional_only && (p.kind == ParamKind::Positional || p.kind == ParamKind::KeywordOnly))
        target = &p;
    if (!target) {
      for (const Parameter& p : params)
        if (p.name == name && p.positional_only && !extra)
          arity_error(code, fmt::format("got some positional-only arguments passed as keyword arguments: '{}'", name), name);
      if (!extra) throw unknown_keyword(code.name, name, keyword_parameters(code));
      extra->items.emplace_back(make_str(name), std::move(value));
      continue;
    }
    if (!is_unbound(slots[target->slot])) arity_error(code, fmt::format("got multiple values for argument '{}'", name), name);
    slots[target->slot] = std::move(value);
  }
  if (var_kwargs) slots[var_kwargs->slot] = Value(extra);
  std::vector<std::string> missing_pos, missing_kw;
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = params[i];
    if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKwargs || !is_unbound(slots[p.slot])) continue;
    if (!is_unbound(fn.defaults[i])) {
      slots[p.slot] = fn.defaults[i];
      continue;
    }
    (p.kind == ParamKind::Positional ? missing_pos : missing_kw).push_back(p.name);
  }
  if (!missing_pos.empty())
    arity_error(code, fmt::format("missing {} required positional argument{}: {}", missing_pos.size(),
                                  missing_pos.size() == 1 ? "" : "s", quoted_names(missing_pos)));
  if (!missing_kw.empty())
    arity_error(code, fmt::format("missing {} required keyword-only argument{}: {}", missing_kw.size(),
                                  missing_kw.size() == 1 ? "" : "s", quoted_names(missing_kw)));
}

}  // namespace

Flow exec_block(InterpState& st, const Block& block, Frame& f) {
  for (const auto& s : block) {
    st.steps += s->cost;
    if (st.steps >= st.next_check) {  // slow path: the statement locates a limit error
      st.current_span = &s->span;
      st.check_limits();
    }
    Flow fl = exec_stmt(st, *s, f);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

void assign(InterpState& st, const Expr& target, const Value& value, Frame& f) {
  switch (target.kind) {
    case ExprKind::Name: store_name(st, static_cast<const NameExpr&>(target), value, f); return;
    case ExprKind::Subscript: assign_subscript(st, static_cast<const SubscriptExpr&>(target), value, f); return;
    case ExprKind::Tuple:
    case ExprKind::List: assign_unpack(st, static_cast<const SequenceExpr&>(target), value, f); return;
    case ExprKind::Attribute: {
      auto& a = static_cast<const AttributeExpr&>(target);
      Value obj = eval(st, *a.value, f);
      if (!obj.is_object())
        st.fail(ErrorKind::Type, a.attr_span, fmt::format("cannot set attribute '{}' of a '{}' object", a.attr, obj.type_name()));
      st.current_span = &a.span;
      try {
        obj.object()->set_attr(st.in, a.attr, value);
      } catch (...) {
        rethrow_at(st, a.attr_span);
      }
      return;
    }
    default: st.fail(ErrorKind::Syntax, target.span, "cannot assign to expression");
  }
}

Value make_function(InterpState& st, const std::shared_ptr<FunctionCode>& code, Frame& f) {
  auto fn = std::make_shared<FunctionObj>();
  fn->code = code;
  fn->env = f.env->shared_from_this();
  fn->defaults.reserve(code->params.size());
  for (const Parameter& p : code->params) fn->defaults.push_back(p.default_value ? eval(st, *p.default_value, f) : unbound());
  fn->closure.reserve(code->info.free_vars.size());
  for (const FreeVarSource& src : code->info.free_vars) {
    if (src.from_cell_slot) fn->closure.push_back(std::static_pointer_cast<CellObj>(f.slots[src.index].object()));
    else fn->closure.push_back(f.fn->closure[src.index]);
  }
  return Value(std::move(fn));
}

Value call_function(InterpState& st, FunctionObj& fn, CallArgs& args, std::vector<Value>* keep_slots) {
  const FunctionCode& code = *fn.code;
  if (st.depth >= st.limits.max_depth)
    throw NkiError(LimitKind::Depth, fmt::format("recursion depth limit of {} exceeded", st.limits.max_depth));
  std::vector<Value> slots(code.info.num_slots, unbound());
  bind_parameters(fn, args, slots.data());
  for (uint32_t c : code.info.cell_slots) {
    auto cell = std::make_shared<CellObj>();
    cell->value = std::move(slots[c]);
    slots[c] = Value(std::move(cell));
  }
  Frame frame;
  frame.slots = slots.data();
  frame.fn = &fn;
  frame.env = fn.env.get();
  FrameCloser closer{frame, slots};
  auto saved_file = st.current_file;
  st.current_file = &fn.env->ast->file;
  ++st.depth;
  struct Restore {
    InterpState& st;
    const std::shared_ptr<const SourceFile>* file;
    uint64_t native_call;
    ~Restore() {
      --st.depth;
      st.current_file = file;
      st.native_call = native_call;
    }
  } restore{st, saved_file, st.native_call};
  st.native_call = 0;  // user code, even when a library calls it back
  if (code.lambda_body) return eval(st, *code.lambda_body, frame);
  Value ret = exec_block(st, code.body, frame) == Flow::Return ? std::move(frame.ret) : Value();
  if (keep_slots) {
    if (frame.life) close_frame(frame, slots);  // before the slots move away
    *keep_slots = std::move(slots);
  }
  return ret;
}

}  // namespace nki::detail

namespace nki {

Value FunctionObj::call(Interpreter& in, CallArgs& args) { return detail::call_function(in.state(), *this, args); }

}  // namespace nki
