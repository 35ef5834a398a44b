// Statements that enter a scope or leave by an exception: with, try/except/else/finally, raise,
// class definitions and del.
#include <algorithm>

#include <fmt/core.h>

#include "nki/classes.h"
#include "nki/core_types.h"
#include "nki/exceptions.h"
#include "nki/interp_impl.h"

namespace nki::detail {

Flow exec_with(InterpState& st, const WithStmt& w, Frame& f, size_t item) {
  if (item == w.items.size()) return exec_block(st, w.body, f);
  const WithItem& it = w.items[item];
  Value manager = eval(st, *it.context, f);
  if (!manager.is_object())
    st.fail(ErrorKind::Type, it.context->span,
            fmt::format("'{}' object does not support the context manager protocol (used in 'with')", manager.type_name()));
  Value entered;
  st.current_span = &it.context->span;
  try {
    entered = manager.object()->enter(st.in);
  } catch (...) {
    rethrow_at(st, it.context->span);
  }
  if (it.target) assign(st, *it.target, entered, f);
  Flow fl;
  try {
    fl = exec_with(st, w, f, item + 1);
  } catch (...) {
    manager.object()->exit(st.in, true);
    throw;
  }
  manager.object()->exit(st.in, false);
  return fl;
}

[[noreturn]] void exec_raise(InterpState& st, const RaiseStmt& r, Frame& f) {
  if (!r.exc) {
    if (st.handling.empty()) st.fail(ErrorKind::Value, r.span, "RuntimeError: no active exception to re-raise");
    throw st.handling.back();
  }
  Value exc = eval(st, *r.exc, f);
  if (r.cause) eval(st, *r.cause, f);
  st.current_span = &r.span;
  try {
    raise_value(st, exc);
  } catch (...) {
    rethrow_at(st, r.span);
  }
}

// try/except/else/finally. Only catchable errors reach the handlers (never a limit); `finally`
// runs on every way out of the statement.
Flow exec_try(InterpState& st, const TryStmt& t, Frame& f) {
  auto run_finally = [&](Flow fl) {
    if (t.finalbody.empty()) return fl;
    Flow fin = exec_block(st, t.finalbody, f);
    return fin != Flow::Normal ? fin : fl;
  };
  Flow fl = Flow::Normal;
  try {
    bool raised = false;
    try {
      fl = exec_block(st, t.body, f);
    } catch (NkiError& e) {
      if (!catchable(e.diag.kind) || t.handlers.empty()) throw;
      raised = true;
      const ExceptHandler* handler = nullptr;
      for (const ExceptHandler& h : t.handlers) {
        if (!h.type || exception_matches(st, e, eval(st, *h.type, f))) {
          handler = &h;
          break;
        }
      }
      if (!handler) throw;
      if (handler->target) assign(st, *handler->target, exception_value(st, e), f);
      // `except E as name:` ends as if by `del name` in a `finally` (Python): the name is unbound
      // after the handler, however it leaves.
      auto unbind_target = [&] {
        if (handler->target && handler->target->kind == ExprKind::Name)
          store_name(st, static_cast<const NameExpr&>(*handler->target), unbound(), f);
      };
      st.handling.push_back(e);
      struct Pop {
        InterpState& st;
        ~Pop() { st.handling.pop_back(); }
      } pop{st};
      try {
        fl = exec_block(st, handler->body, f);
      } catch (...) {
        unbind_target();
        throw;
      }
      unbind_target();
    }
    if (!raised && fl == Flow::Normal && !t.orelse.empty()) fl = exec_block(st, t.orelse, f);
  } catch (const NkiError& e) {
    // After a limit (or a sandbox or internal error) no more user code runs, `finally` included.
    if (catchable(e.diag.kind) && !t.finalbody.empty()) {
      Flow fin = exec_block(st, t.finalbody, f);
      if (fin != Flow::Normal) return fin;  // return/break in finally discards the exception
    }
    throw;
  }
  return run_finally(fl);
}

namespace {

// `x: ClassVar[int]` (or typing.ClassVar) is a class attribute, not a dataclass field.
bool is_class_var(const Expr& annotation) {
  const Expr* e = &annotation;
  if (e->kind == ExprKind::Subscript) e = static_cast<const SubscriptExpr*>(e)->value.get();
  if (e->kind == ExprKind::Name) return static_cast<const NameExpr*>(e)->id == "ClassVar";
  if (e->kind == ExprKind::Attribute) return static_cast<const AttributeExpr*>(e)->attr == "ClassVar";
  return false;
}

// The names a class body binds at its top level, in order, and the annotated ones.
void body_names(const Block& body, ClassObj& cls) {
  auto note = [&](const std::string& name) {
    if (std::find(cls.body_order.begin(), cls.body_order.end(), name) == cls.body_order.end()) cls.body_order.push_back(name);
  };
  auto annotate = [&](const Expr& target, const Expr* annotation) {
    if (target.kind != ExprKind::Name || !annotation || is_class_var(*annotation)) return;
    const std::string& name = static_cast<const NameExpr&>(target).id;
    if (std::find(cls.annotated.begin(), cls.annotated.end(), name) == cls.annotated.end()) cls.annotated.push_back(name);
  };
  for (const auto& s : body) {
    if (s->kind == StmtKind::Assign) {
      auto& a = static_cast<const AssignStmt&>(*s);
      for (const auto& t : a.targets)
        if (t->kind == ExprKind::Name) note(static_cast<const NameExpr&>(*t).id);
      if (a.targets.size() == 1) annotate(*a.targets[0], a.annotation.get());
    } else if (s->kind == StmtKind::AnnAssign) {
      auto& a = static_cast<const AnnAssignStmt&>(*s);
      annotate(*a.target, a.annotation.get());
    } else if (s->kind == StmtKind::FunctionDef) {
      note(static_cast<const FunctionDefStmt&>(*s).code->name);
    }
  }
}

}  // namespace

void exec_class_def(InterpState& st, const ClassDefStmt& c, Frame& f) {
  std::vector<Value> decorators;
  for (const auto& dec : c.decorators) decorators.push_back(eval(st, *dec, f));
  std::vector<std::shared_ptr<ClassObj>> bases;
  std::shared_ptr<ExceptionClassObj> exception_base;
  for (const auto& b : c.bases) {
    Value v = eval(st, *b, f);
    if (auto cls = std::dynamic_pointer_cast<ClassObj>(v.is_object() ? v.object() : nullptr)) {
      bases.push_back(cls);
    } else if (auto ex = std::dynamic_pointer_cast<ExceptionClassObj>(v.is_object() ? v.object() : nullptr)) {
      exception_base = ex;
    } else {
      st.fail(ErrorKind::Type, b->span, fmt::format("a class can derive only from classes defined in the kernel file "
                                                    "or from exception classes, not from {}", v.repr()));
    }
  }
  // The body runs as a function call; its local names become the class attributes.
  Value body_fn = make_function(st, c.code, f);
  auto& fn = static_cast<FunctionObj&>(*body_fn.object());
  std::vector<Value> slots;
  CallArgs none;
  struct ClassBody {  // a class body is declarations, like the statements around it
    int& bodies;
    explicit ClassBody(int& b) : bodies(b) { ++bodies; }
    ~ClassBody() { --bodies; }
  } body(st.class_bodies);
  call_function(st, fn, none, &slots);
  std::map<std::string, Value, std::less<>> attrs;
  const CodeInfo& info = c.code->info;
  for (uint32_t i = 0; i < info.num_slots && i < slots.size(); ++i) {
    Value v = slots[i];
    if (auto* cell = dynamic_cast<CellObj*>(v.is_object() ? v.object().get() : nullptr)) v = cell->value;
    if (!is_unbound(v)) attrs[info.slot_names[i]] = v;
  }
  Value cls;
  if (exception_base) {
    auto ex = make_exception_subclass(c.code->name, exception_base);
    ex->attrs = std::move(attrs);
    cls = Value(ex);
  } else {
    auto k = std::make_shared<ClassObj>(c.code->name, std::move(bases));
    k->attrs = std::move(attrs);
    body_names(c.code->body, *k);
    cls = Value(k);
    if (const SubclassHook* hook = k->find_hook()) cls = (*hook)(st.in, k);
  }
  for (size_t i = decorators.size(); i-- > 0;) {
    CallArgs args;
    args.args.push_back(cls);
    cls = call_value(st, decorators[i], args);
  }
  store_name(st, *c.target, cls, f);
}

void exec_delete(InterpState& st, const DeleteStmt& d, Frame& f) {
  for (const auto& t : d.targets) {
    switch (t->kind) {
      case ExprKind::Name: {
        auto& n = static_cast<const NameExpr&>(*t);
        Value current = eval(st, n, f);  // NameError when unbound, as Python
        (void)current;
        store_name(st, n, unbound(), f);
        break;
      }
      case ExprKind::Subscript: {
        auto& s = static_cast<const SubscriptExpr&>(*t);
        Value obj = eval(st, *s.value, f);
        Value index = eval(st, *s.index, f);
        if (!obj.is_object())
          st.fail(ErrorKind::Type, s.span, fmt::format("'{}' object doesn't support item deletion", obj.type_name()));
        st.current_span = &s.span;
        try {
          obj.object()->del_item(st.in, index);
        } catch (...) {
          rethrow_at(st, s.span);
        }
        break;
      }
      default: st.fail(ErrorKind::Unsupported, t->span, "deleting attributes is not supported in kernels");
    }
  }
}

}  // namespace nki::detail
