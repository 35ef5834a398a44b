// Expression evaluation: a switch over node kinds with fast paths for ints, floats and lists.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/core.h>

#include "nki/core_ops.h"
#include "nki/interp_impl.h"
#include "tensor/array.h"

namespace nki::detail {

namespace {

constexpr size_t kMaxTracebackNotes = 20;

[[noreturn]] void undefined_name(InterpState& st, const NameExpr& n) {
  if (const char* reason = forbidden_reason(n.id))
    st.fail(ErrorKind::Sandbox, n.span, fmt::format("'{}' is not available in kernels: {}", n.id, reason));
  st.fail(ErrorKind::Name, n.span, fmt::format("name '{}' is not defined", n.id));
}

Value load_name(InterpState& st, const NameExpr& n, Frame& f) {
  switch (n.scope) {
    case NameScope::Local: {
      const Value& v = f.slots[n.index];
      if (is_unbound(v))
        st.fail(ErrorKind::Name, n.span, fmt::format("local variable '{}' referenced before assignment", n.id));
      return v;
    }
    case NameScope::Cell: {
      const Value& v = static_cast<CellObj&>(*f.slots[n.index].object()).value;
      if (is_unbound(v)) st.fail(ErrorKind::Name, n.span, fmt::format("variable '{}' referenced before assignment", n.id));
      return v;
    }
    case NameScope::Free: {
      const Value& v = f.fn->closure[n.index]->value;
      if (is_unbound(v))
        st.fail(ErrorKind::Name, n.span, fmt::format("free variable '{}' referenced before assignment", n.id));
      return v;
    }
    case NameScope::Global: {
      const Value& v = f.env->globals[n.index];
      if (is_unbound(v)) st.fail(ErrorKind::Name, n.span, fmt::format("name '{}' is not defined", n.id));
      return v;
    }
    case NameScope::Builtin: return st.builtins[n.index];
    default: undefined_name(st, n);
  }
}

[[noreturn]] void rethrow_located(InterpState& st, const Span& span, std::string_view what);

bool truth(InterpState& st, const Value& v, const Span& span) {
  if (!v.is_object()) return v.truthy();
  st.current_span = &span;
  try {
    return v.object()->truthy();
  } catch (...) {
    // A tile's truth (`a and b`, `not t`, `x if t else y`) is err_ambiguous_tensor_truth_value:
    // reported at the operand, compiler-style, as the statements' conditions are.
    rethrow_located(st, span, "truth value");
  }
}

// Converts exceptions escaping library code into located diagnostics (never a crash).
[[noreturn]] void rethrow_located(InterpState& st, const Span& span, std::string_view what) {
  try {
    throw;
  } catch (NkiError& e) {
    if (!e.diag.loc.known()) e.diag.loc = st.loc(span);
    throw;
  } catch (const tensor::BudgetExceeded& e) {
    throw NkiError(LimitKind::Memory, e.what(), st.loc(span));
  } catch (const tensor::ArrayError& e) {
    throw NkiError(ErrorKind::Value, e.what(), st.loc(span));
  } catch (const std::bad_alloc&) {
    throw NkiError(LimitKind::Memory, fmt::format("out of memory in {}", what), st.loc(span));
  } catch (const std::exception& e) {
    throw NkiError(ErrorKind::Internal, fmt::format("internal error in {}: {}", what, e.what()), st.loc(span));
  }
}

std::string callee_name(const Value& callee) {
  if (auto* b = callee.as<BuiltinObj>()) return b->name;
  return "'" + callee.type_name() + "' object";
}

void push_starred(InterpState& st, const Value& iterable, std::vector<Value>& out) {
  auto it = iterate(st, iterable);
  for (Value v; it->next(v);) {
    core::check_container_size(out.size() + 1, sizeof(Value));
    out.push_back(std::move(v));
  }
}

void collect_args(InterpState& st, const CallExpr& c, Frame& f, CallArgs& args) {
  args.args.reserve(c.args.size());
  for (const auto& a : c.args) {
    if (a->kind != ExprKind::Starred) {
      args.args.push_back(eval(st, *a, f));
      continue;
    }
    Value seq = eval(st, *static_cast<const StarredExpr&>(*a).value, f);
    st.current_span = &a->span;
    push_starred(st, seq, args.args);
  }
  for (const Keyword& k : c.keywords) {
    Value v = eval(st, *k.value, f);
    if (!k.name.empty()) {
      args.kwargs.emplace_back(k.name, std::move(v));
      continue;
    }
    auto* d = v.as<DictObj>();
    if (!d) st.fail(ErrorKind::Type, k.span, fmt::format("argument after ** must be a dict, not {}", v.type_name()));
    for (auto& [key, val] : d->items) {
      auto* s = key.as<StrObj>();
      if (!s) st.fail(ErrorKind::Type, k.span, "keywords must be strings");
      for (auto& existing : args.kwargs)
        if (existing.first == s->s) st.fail(ErrorKind::Type, k.span, fmt::format("got multiple values for keyword argument '{}'", s->s));
      args.kwargs.emplace_back(s->s, val);
    }
  }
}

bool same_note(const Note& a, const Note& b) {
  return a.message == b.message && a.loc.line == b.loc.line && a.loc.col == b.loc.col && a.loc.file == b.loc.file;
}

// Appends a traceback frame; a recursive call repeating the previous frame is counted, not listed.
void add_traceback_note(Diagnostic& d, Note note) {
  constexpr const char* kRepeated = "the call above was repeated ";
  auto& notes = d.notes;
  size_t n = notes.size();
  if (n >= 2 && same_note(notes[n - 2], note) && notes[n - 1].message.rfind(kRepeated, 0) == 0) {
    int count = std::atoi(notes[n - 1].message.c_str() + std::strlen(kRepeated)) + 1;
    notes[n - 1].message = fmt::format("{}{} more times", kRepeated, count);
    return;
  }
  if (n >= 1 && same_note(notes[n - 1], note)) {
    notes.push_back({SourceLoc{}, fmt::format("{}1 more times", kRepeated)});
    return;
  }
  if (n < kMaxTracebackNotes) notes.push_back(std::move(note));
}

// A call of a library object (builtin, method, class): numbered, so that the library can tell
// the instructions of one call from the next call's (InterpState::native_call).
Value call_native(InterpState& st, Object& callee, CallArgs& args) {
  struct Restore {
    InterpState& st;
    uint64_t saved;
    ~Restore() { st.native_call = saved; }
  } restore{st, st.native_call};
  st.native_call = ++st.native_calls;
  return callee.call(st.in, args);
}

Value call_at(InterpState& st, const Value& callee, CallArgs& args, const Span& span) {
  if (auto* fn = callee.as<FunctionObj>()) {
    try {
      return call_function(st, *fn, args);
    } catch (NkiError& e) {
      if (!e.diag.loc.known()) {
        e.diag.loc = st.loc(span);  // raised while binding the arguments: the call site says it all
        throw;
      }
      add_traceback_note(e.diag, {st.loc(span), fmt::format("in a call to '{}' from here", fn->code->name)});
      throw;
    }
  }
  if (!callee.is_object())
    st.fail(ErrorKind::Type, span, fmt::format("'{}' object is not callable", callee.type_name()));
  st.current_span = &span;
  try {
    return call_native(st, *callee.object(), args);
  } catch (...) {
    rethrow_located(st, span, callee_name(callee));
  }
}

// A binding error about one keyword argument of this call (diag.keyword, located at the call by
// call_at) is reported at that keyword, the caret under its name. An error already located
// elsewhere (a call inside the callee) is left where it is.
void point_at_keyword(InterpState& st, const CallExpr& c, NkiError& e) {
  if (e.diag.keyword.empty()) return;
  SourceLoc call = st.loc(c.span);
  if (e.diag.loc.file != call.file || e.diag.loc.line != call.line || e.diag.loc.col != call.col) return;
  for (const Keyword& k : c.keywords) {
    if (k.name != e.diag.keyword) continue;
    e.diag.loc = st.loc(Span{k.span.line, k.span.col, k.span.line, k.span.col + uint32_t(k.name.size())});
    return;
  }
}

Value eval_call(InterpState& st, const CallExpr& c, Frame& f) {
  Value callee = eval(st, *c.func, f);
  CallArgs args;
  if (c.simple) {
    args.args.reserve(c.args.size());
    for (const auto& a : c.args) args.args.push_back(eval(st, *a, f));
    args.kwargs.reserve(c.keywords.size());
    for (const Keyword& k : c.keywords) args.kwargs.emplace_back(k.name, eval(st, *k.value, f));
  } else {
    collect_args(st, c, f, args);
  }
  try {
    return call_at(st, callee, args, c.span);
  } catch (NkiError& e) {
    point_at_keyword(st, c, e);
    throw;
  }
}

Value eval_attribute(InterpState& st, const AttributeExpr& a, Frame& f) {
  Value obj = eval(st, *a.value, f);
  if (obj.is(ObjType::Module) && a.cache_owner == obj.object()) return a.cache_value;
  st.current_span = &a.span;
  Value v;
  try {
    v = get_attribute(st, obj, a.attr);
  } catch (...) {
    rethrow_located(st, a.attr_span, "attribute access");
  }
  if (obj.is(ObjType::Module)) {
    a.cache_owner = obj.object();
    a.cache_value = v;
  }
  return v;
}

// Every element is a literal or a slice of literals (evaluation has no effect and always gives
// equal immutable values).
bool is_constant_tuple(const SequenceExpr& t) {
  auto literal = [](const ExprPtr& x) { return !x || x->kind == ExprKind::Constant; };
  for (const auto& e : t.elts) {
    if (e->kind == ExprKind::Constant) continue;
    if (e->kind == ExprKind::Slice) {
      auto& s = static_cast<const SliceExpr&>(*e);
      if (literal(s.lower) && literal(s.upper) && literal(s.step)) continue;
    }
    return false;
  }
  return true;
}

Value eval_slice(InterpState& st, const SliceExpr& s, Frame& f) {
  // `:` (the most common subscript part of a kernel) is one shared object: slices are never
  // mutated after construction, so there is no need to allocate one per evaluation.
  if (!s.lower && !s.upper && !s.step) {
    static const ObjectPtr full = std::make_shared<SliceObj>();
    return Value(full);
  }
  auto slice = std::make_shared<SliceObj>();
  if (s.lower) slice->start = eval(st, *s.lower, f);
  if (s.upper) slice->stop = eval(st, *s.upper, f);
  if (s.step) slice->step = eval(st, *s.step, f);
  return Value(std::move(slice));
}

Value eval_subscript(InterpState& st, const SubscriptExpr& s, Frame& f) {
  Value obj = eval(st, *s.value, f);
  Value index = eval(st, *s.index, f);
  if (index.is_int()) {  // fast path: list[i], tuple[i]
    const std::vector<Value>* items = nullptr;
    if (auto* l = obj.as<ListObj>()) items = &l->items;
    else if (auto* t = obj.as<TupleObj>()) items = &t->items;
    if (items) {
      int64_t i = index.as_int(), n = int64_t(items->size());
      if (i < 0) i += n;
      if (i >= 0 && i < n) return (*items)[size_t(i)];
    }
  }
  if (!obj.is_object())
    st.fail(ErrorKind::Type, s.span, fmt::format("'{}' object is not subscriptable", obj.type_name()));
  st.current_span = &s.span;
  try {
    return obj.object()->get_item(st.in, index);
  } catch (...) {
    rethrow_located(st, s.span, "subscript");
  }
}

std::vector<Value> eval_elements(InterpState& st, const std::vector<ExprPtr>& elts, Frame& f) {
  std::vector<Value> out;
  out.reserve(elts.size());
  for (const auto& e : elts) {
    if (e->kind != ExprKind::Starred) {
      out.push_back(eval(st, *e, f));
      continue;
    }
    Value seq = eval(st, *static_cast<const StarredExpr&>(*e).value, f);
    st.current_span = &e->span;
    try {
      push_starred(st, seq, out);
    } catch (...) {
      rethrow_located(st, e->span, "unpacking");
    }
  }
  return out;
}

Value eval_dict(InterpState& st, const DictExpr& d, Frame& f) {
  auto dict = std::make_shared<DictObj>();
  for (size_t i = 0; i < d.values.size(); ++i) {
    if (!d.keys[i]) {
      Value other = eval(st, *d.values[i], f);
      auto* od = other.as<DictObj>();
      if (!od) st.fail(ErrorKind::Type, d.values[i]->span, fmt::format("'{}' object is not a mapping", other.type_name()));
      for (auto& [k, v] : od->items) core::set_item(st.in, *dict, k, v);
      continue;
    }
    Value key = eval(st, *d.keys[i], f);
    Value value = eval(st, *d.values[i], f);
    st.current_span = &d.keys[i]->span;
    try {
      core::set_item(st.in, *dict, key, value);
    } catch (...) {
      rethrow_located(st, d.keys[i]->span, "dict display");
    }
  }
  return Value(std::move(dict));
}

// A for clause's iterable, evaluated and opened (an error located at the iterable).
std::unique_ptr<Iterator> open_clause(InterpState& st, const Comprehension& gen, Frame& f) {
  Value iterable = eval(st, *gen.iter, f);
  st.current_span = &gen.iter->span;
  try {
    return iterate(st, iterable);
  } catch (...) {
    rethrow_located(st, gen.iter->span, "iteration");
  }
}

// Whether the clause's `if` conditions all hold for its current item.
bool clause_keeps(InterpState& st, const Comprehension& gen, Frame& f) {
  for (const auto& cond : gen.ifs)
    if (!truth(st, eval(st, *cond, f), cond->span)) return false;
  return true;
}

// Runs the nested for/if clauses of a comprehension, calling `emit` for every produced item.
template <class Emit>
void run_comprehension(InterpState& st, const ComprehensionExpr& c, size_t level, Frame& f, Emit& emit) {
  if (level == c.generators.size()) {
    emit();
    return;
  }
  const Comprehension& gen = c.generators[level];
  std::unique_ptr<Iterator> it = open_clause(st, gen, f);
  for (Value item; it->next(item);) {
    st.charge(1);
    assign(st, *gen.target, item, f);
    if (clause_keeps(st, gen, f)) run_comprehension(st, c, level + 1, f, emit);
  }
}

// A generator expression, run one item at a time as Python runs it: each next() resumes the
// for/if clauses where the previous one stopped and evaluates one element. The order matters to
// the trace: `sum(nl.matmul(...) for ...)` issues matmul, add, matmul, add..., each partial
// product dead after its add, not every matmul before the first add (all of them live at once).
class GeneratorIterator : public Iterator {
 public:
  GeneratorIterator(InterpState& st, const ComprehensionExpr& c, std::shared_ptr<FrameLife> life,
                    std::unique_ptr<Iterator> first)
      : st_(st), c_(c), life_(std::move(life)) {
    its_.push_back(std::move(first));
    items_.push_back(unbound());
  }

  bool next(Value& out) override {
    if (!life_) return false;
    Frame& f = life_->frame();
    // The clauses are user code of the generator's module, whoever consumes it (a builtin such as
    // sum(), or a function of another module): as call_function does for a call.
    struct Restore {
      InterpState& st;
      const std::shared_ptr<const SourceFile>* file;
      uint64_t native_call;
      ~Restore() {
        st.current_file = file;
        st.native_call = native_call;
      }
    } restore{st_, st_.current_file, st_.native_call};
    if (f.env) st_.current_file = &f.env->ast->file;
    st_.native_call = 0;
    // The clauses' variables live in the creating frame's slots, which another generator of the
    // same expression may have moved on since: put back this one's.
    for (size_t l = 0; l < items_.size(); ++l)
      if (!is_unbound(items_[l])) assign(st_, *c_.generators[l].target, items_[l], f);
    while (!its_.empty()) {
      const size_t l = its_.size() - 1;
      const Comprehension& gen = c_.generators[l];
      Value item;
      if (!its_[l]->next(item)) {
        its_.pop_back();
        items_.pop_back();
        continue;
      }
      st_.charge(1);
      assign(st_, *gen.target, item, f);
      items_[l] = std::move(item);
      if (!clause_keeps(st_, gen, f)) continue;
      if (l + 1 == c_.generators.size()) {
        out = eval(st_, *c_.elt, f);
        return true;
      }
      its_.push_back(open_clause(st_, c_.generators[l + 1], f));
      items_.push_back(unbound());
    }
    life_.reset();  // exhausted: let the frame go
    return false;
  }

  bool runs_in(const FrameLife* life) const { return life_.get() == life; }

 private:
  InterpState& st_;
  const ComprehensionExpr& c_;  // the module's AST outlives the generator (ModuleEnv::ast)
  std::shared_ptr<FrameLife> life_;
  std::vector<std::unique_ptr<Iterator>> its_;  // one per clause entered, outermost first
  std::vector<Value> items_;                    // each entered clause's current item
};

Value lazy_generator(InterpState& st, const ComprehensionExpr& c, Frame& f) {
  // As in Python, the outermost iterable is evaluated (and iterated) when the generator is made.
  std::unique_ptr<Iterator> it = open_clause(st, c.generators[0], f);
  std::shared_ptr<FrameLife> life;
  if (f.closed_in) {
    life = f.closed_in->shared_from_this();  // made by a generator of an ended frame: the same copy
  } else {
    if (!f.life) {
      f.life = std::make_shared<FrameLife>();
      f.life->live = &f;
    }
    life = f.life;
  }
  return Value(std::make_shared<IteratorObj>("generator",
                                             std::make_unique<GeneratorIterator>(st, c, std::move(life), std::move(it))));
}

Value eval_comprehension(InterpState& st, const ComprehensionExpr& c, Frame& f) {
  if (c.kind == ExprKind::GeneratorExp) return lazy_generator(st, c, f);
  if (c.kind == ExprKind::DictComp) {
    auto dict = std::make_shared<DictObj>();
    auto emit = [&] {
      Value k = eval(st, *c.elt, f);
      Value v = eval(st, *c.value, f);
      core::set_item(st.in, *dict, k, v);
    };
    run_comprehension(st, c, 0, f, emit);
    return Value(std::move(dict));
  }
  if (c.kind == ExprKind::SetComp) {
    auto set = std::make_shared<SetObj>();
    auto emit = [&] { set->add(eval(st, *c.elt, f)); };
    run_comprehension(st, c, 0, f, emit);
    return Value(std::move(set));
  }
  std::vector<Value> items;
  auto emit = [&] {
    core::check_container_size(items.size() + 1, sizeof(Value));
    items.push_back(eval(st, *c.elt, f));
  };
  run_comprehension(st, c, 0, f, emit);
  return make_list(std::move(items));
}

Value eval_fstring(InterpState& st, const FStringExpr& fs, Frame& f) {
  std::string out;
  for (const FStringPart& part : fs.parts) {
    out += part.literal;
    if (!part.expr) continue;
    Value v = eval(st, *part.expr, f);
    st.current_span = &part.expr->span;
    try {
      if (part.conversion == 'r') v = make_str(v.repr());
      else if (part.conversion == 's') v = make_str(v.str());
      out += core::format_value(st.in, v, part.spec);
    } catch (...) {
      rethrow_located(st, part.expr->span, "f-string formatting");
    }
    core::check_container_size(out.size(), 1);
  }
  return make_str(std::move(out));
}

Value eval_compare(InterpState& st, const CompareExpr& c, Frame& f) {
  Value left = eval(st, *c.left, f);
  Value result;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    Value right = eval(st, *c.comparators[i], f);
    st.current_span = &c.span;
    result = compare_op(st, c.ops[i], left, right);
    if (i + 1 < c.ops.size() && !truth(st, result, c.span)) return result;
    left = std::move(right);
  }
  return result;
}

// int/float arithmetic without leaving the evaluator; everything else goes to binary_op.
inline bool fast_binary(BinOp op, const Value& l, const Value& r, Value& out) {
  if (l.is_int() && r.is_int()) {
    int64_t a = l.as_int(), b = r.as_int(), c;
    switch (op) {
      case BinOp::Add: if (__builtin_add_overflow(a, b, &c)) return false; out = Value::from_int(c); return true;
      case BinOp::Sub: if (__builtin_sub_overflow(a, b, &c)) return false; out = Value::from_int(c); return true;
      case BinOp::Mul: if (__builtin_mul_overflow(a, b, &c)) return false; out = Value::from_int(c); return true;
      default: return false;
    }
  }
  if (l.is_float() && r.is_float()) {
    double a = l.as_float(), b = r.as_float();
    switch (op) {
      case BinOp::Add: out = Value::from_float(a + b); return true;
      case BinOp::Sub: out = Value::from_float(a - b); return true;
      case BinOp::Mul: out = Value::from_float(a * b); return true;
      default: return false;
    }
  }
  return false;
}

}  // namespace

// A generator that an ended frame's slots would hold would keep its copy of them alive forever
// (the copy holds the generator, which holds the copy): such slots hold None instead.
void close_frame(Frame& f, const std::vector<Value>& slots) {
  std::shared_ptr<FrameLife> life = std::move(f.life);
  if (life.use_count() == 1) return;  // no generator of the frame is left
  life->slots = slots;
  auto own = [&](const Value& v) {
    auto* g = v.as<IteratorObj>();
    auto* it = g ? dynamic_cast<const GeneratorIterator*>(g->it.get()) : nullptr;
    return it && it->runs_in(life.get());
  };
  for (Value& v : life->slots)
    if (own(v)) v = Value();
  life->closed = f;
  life->closed.slots = life->slots.data();
  life->closed.life.reset();
  life->closed.closed_in = life.get();
  life->closed.ret = Value();
  if (f.fn) life->keep_fn = f.fn->shared_from_this();
  life->live = nullptr;
}

std::unique_ptr<Iterator> iterate(InterpState& st, const Value& v) {
  if (!v.is_object()) throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not iterable", v.type_name()));
  return v.object()->iter(st.in);
}

namespace {

// Methods and attributes of the unboxed numbers: int.bit_length (`F.bit_length()` sizing a
// power-of-two tile), float.is_integer, and the real / imag parts of both.
std::optional<Value> number_attribute(const Value& obj, std::string_view name) {
  const bool integral = obj.is_int() || obj.is_bool();  // bool is an int in Python
  if ((name == "real" || name == "numerator") && integral) return Value::from_int(obj.as_int());
  if (name == "real" && obj.is_float()) return obj;
  if (name == "imag") return integral ? Value::from_int(0) : Value::from_float(0.0);
  if (name == "denominator" && integral) return Value::from_int(1);
  auto method = [&](const char* qualified, NativeFn fn) { return Value(std::make_shared<BuiltinObj>(qualified, std::move(fn))); };
  if (name == "bit_length" && integral) {
    int64_t v = obj.as_int();
    return method("int.bit_length", [v](Interpreter&, CallArgs& a) {
      if (!a.args.empty() || !a.kwargs.empty()) throw NkiError(ErrorKind::Type, "int.bit_length() takes no arguments");
      uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
      int64_t n = 0;
      for (; m; m >>= 1) ++n;
      return Value::from_int(n);
    });
  }
  if (name == "is_integer" && obj.is_float()) {
    double v = obj.as_float();
    return method("float.is_integer", [v](Interpreter&, CallArgs& a) {
      if (!a.args.empty() || !a.kwargs.empty()) throw NkiError(ErrorKind::Type, "float.is_integer() takes no arguments");
      return Value::from_bool(std::isfinite(v) && std::trunc(v) == v);
    });
  }
  return std::nullopt;
}

}  // namespace

Value get_attribute(InterpState& st, const Value& obj, std::string_view name) {
  if (auto v = obj.is_int() || obj.is_float() || obj.is_bool() ? number_attribute(obj, name) : std::nullopt) return *v;
  if (!obj.is_object())
    throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("'{}' object has no attribute '{}'", obj.type_name(), name));
  return obj.object()->get_attr(st.in, name);
}

Value call_value(InterpState& st, const Value& callee, CallArgs& args) {
  if (auto* fn = callee.as<FunctionObj>()) return call_function(st, *fn, args);
  if (!callee.is_object()) throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not callable", callee.type_name()));
  return call_native(st, *callee.object(), args);
}

Value eval(InterpState& st, const Expr& e, Frame& f) {
  switch (e.kind) {
    case ExprKind::Name: return load_name(st, static_cast<const NameExpr&>(e), f);
    case ExprKind::Constant: return static_cast<const ConstantExpr&>(e).value;
    case ExprKind::BinOp: {
      auto& b = static_cast<const BinOpExpr&>(e);
      Value l = eval(st, *b.left, f);
      Value r = eval(st, *b.right, f);
      Value out;
      if (fast_binary(b.op, l, r, out)) return out;
      st.current_span = &e.span;
      try {
        return binary_op(st, b.op, l, r);
      } catch (...) {
        rethrow_located(st, e.span, fmt::format("operator '{}'", symbol(b.op)));
      }
    }
    case ExprKind::UnaryOp: {
      auto& u = static_cast<const UnaryOpExpr&>(e);
      Value v = eval(st, *u.operand, f);
      if (u.op == UnOp::Not) return Value::from_bool(!truth(st, v, e.span));
      st.current_span = &e.span;
      try {
        return unary_op(st, u.op, v);
      } catch (...) {
        rethrow_located(st, e.span, fmt::format("unary operator '{}'", symbol(u.op)));
      }
    }
    case ExprKind::BoolOp: {
      auto& b = static_cast<const BoolOpExpr&>(e);
      Value v;
      for (const auto& operand : b.values) {
        v = eval(st, *operand, f);
        if (truth(st, v, operand->span) != b.is_and) return v;
      }
      return v;
    }
    case ExprKind::Compare: return eval_compare(st, static_cast<const CompareExpr&>(e), f);
    case ExprKind::Call: return eval_call(st, static_cast<const CallExpr&>(e), f);
    case ExprKind::Attribute: return eval_attribute(st, static_cast<const AttributeExpr&>(e), f);
    case ExprKind::Subscript: return eval_subscript(st, static_cast<const SubscriptExpr&>(e), f);
    case ExprKind::Slice: return eval_slice(st, static_cast<const SliceExpr&>(e), f);
    case ExprKind::Tuple: {
      auto& t = static_cast<const SequenceExpr&>(e);
      if (t.constant_state == 0) t.constant_state = is_constant_tuple(t) ? 1 : -1;
      if (t.constant_state < 0) return make_tuple(eval_elements(st, t.elts, f));
      if (!t.constant_value.is_object()) t.constant_value = make_tuple(eval_elements(st, t.elts, f));
      return t.constant_value;
    }
    case ExprKind::List: return make_list(eval_elements(st, static_cast<const SequenceExpr&>(e).elts, f));
    case ExprKind::Set: {
      auto set = std::make_shared<SetObj>();
      for (Value& v : eval_elements(st, static_cast<const SequenceExpr&>(e).elts, f)) set->add(v);
      return Value(std::move(set));
    }
    case ExprKind::Dict: return eval_dict(st, static_cast<const DictExpr&>(e), f);
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::DictComp:
    case ExprKind::GeneratorExp: return eval_comprehension(st, static_cast<const ComprehensionExpr&>(e), f);
    case ExprKind::IfExp: {
      auto& i = static_cast<const IfExpExpr&>(e);
      return truth(st, eval(st, *i.test, f), i.test->span) ? eval(st, *i.body, f) : eval(st, *i.orelse, f);
    }
    case ExprKind::Lambda: return make_function(st, static_cast<const LambdaExpr&>(e).code, f);
    case ExprKind::FString: return eval_fstring(st, static_cast<const FStringExpr&>(e), f);
    case ExprKind::Starred: st.fail(ErrorKind::Syntax, e.span, "can't use starred expression here");
    case ExprKind::NamedExpr: {
      auto& n = static_cast<const NamedExpr&>(e);
      Value v = eval(st, *n.value, f);
      assign(st, *n.target, v, f);
      return v;
    }
  }
  st.fail(ErrorKind::Internal, e.span, "unknown expression kind");
}

}  // namespace nki::detail
