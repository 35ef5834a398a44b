#include "nki/exceptions.h"

#include <fmt/core.h>

#include "nki/interp_impl.h"

namespace nki {

ExceptionClassObj::ExceptionClassObj(std::string name, std::shared_ptr<ExceptionClassObj> b, ErrorKind k)
    : TypeObj(std::move(name), nullptr), base(std::move(b)), kind(k) {
  instance_check = [this](const Value& v) {
    auto* e = v.is_object() ? dynamic_cast<ExceptionObj*>(v.object().get()) : nullptr;
    return e && e->cls->is_subclass_of(*this);
  };
}

bool ExceptionClassObj::is_subclass_of(const ExceptionClassObj& other) const {
  for (const ExceptionClassObj* c = this; c; c = c->base.get())
    if (c == &other) return true;
  return false;
}

Value ExceptionClassObj::get_attr(Interpreter& in, std::string_view n) {
  for (const ExceptionClassObj* c = this; c; c = c->base.get()) {
    auto it = c->attrs.find(n);
    if (it != c->attrs.end()) return it->second;
  }
  return TypeObj::get_attr(in, n);
}

bool ExceptionClassObj::has_attr(std::string_view n) const {
  for (const ExceptionClassObj* c = this; c; c = c->base.get())
    if (c->attrs.count(n)) return true;
  return false;
}

std::string ExceptionObj::repr() const {
  std::string inner;
  for (size_t i = 0; i < args.size(); ++i) inner += (i ? ", " : "") + args[i].repr();
  return cls->name + "(" + inner + ")";
}

std::string ExceptionObj::str() const {
  if (args.empty()) return "";
  if (args.size() == 1) return args[0].str();
  return make_tuple(args).repr();
}

Value ExceptionObj::get_attr(Interpreter& in, std::string_view name) {
  if (name == "args") return make_tuple(args);
  if (cls->has_attr(name)) return cls->get_attr(in, name);
  return Object::get_attr(in, name);
}

bool ExceptionObj::has_attr(std::string_view name) const { return name == "args" || cls->has_attr(name); }

namespace detail {

namespace {

// The builtin classes, kept per interpreter so that interpreter-raised errors map onto them.
struct ExceptionClasses {
  std::map<std::string, std::shared_ptr<ExceptionClassObj>, std::less<>> by_name;
  std::shared_ptr<ExceptionClassObj> get(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
};

ExceptionClasses& classes(InterpState& st) {
  auto* c = st.in.extension<ExceptionClasses>();
  if (!c) throw NkiError(ErrorKind::Internal, "exception classes are not installed");
  return *c;
}

// The Python class of an error raised by the interpreter or a library.
const char* class_of_kind(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Type:
    case ErrorKind::UnknownKeyword: return "TypeError";
    case ErrorKind::Value: return "ValueError";
    case ErrorKind::Index: return "IndexError";
    case ErrorKind::Assertion: return "AssertionError";
    case ErrorKind::Name: return "NameError";
    case ErrorKind::Rule: return "RuntimeError";  // an NKI compile error: catchable as Exception
    default: return "Exception";
  }
}

std::shared_ptr<ExceptionClassObj> class_of(InterpState& st, const NkiError& e) {
  ExceptionClasses& c = classes(st);
  if (e.exception) return std::static_pointer_cast<ExceptionObj>(std::static_pointer_cast<Object>(e.exception))->cls;
  if (!e.diag.py_type.empty())
    if (auto cls = c.get(e.diag.py_type)) return cls;
  return c.get(class_of_kind(e.diag.kind));
}

}  // namespace

void install_exceptions(InterpState& st) {
  auto table = std::make_shared<ExceptionClasses>();
  auto add = [&](const char* name, const char* base, ErrorKind kind) {
    auto cls = std::make_shared<ExceptionClassObj>(name, base ? table->get(base) : nullptr, kind);
    auto* raw = cls.get();
    cls->construct = [raw](Interpreter&, CallArgs& a) -> Value {
      if (!a.kwargs.empty()) throw NkiError(ErrorKind::Type, fmt::format("{}() takes no keyword arguments", raw->name));
      return Value(std::make_shared<ExceptionObj>(std::static_pointer_cast<ExceptionClassObj>(raw->shared_from_this()), a.args));
    };
    table->by_name[name] = cls;
    st.in.set_builtin(name, Value(cls));
  };
  add("BaseException", nullptr, ErrorKind::Value);
  add("Exception", "BaseException", ErrorKind::Value);
  add("ArithmeticError", "Exception", ErrorKind::Value);
  add("ZeroDivisionError", "ArithmeticError", ErrorKind::Value);
  add("OverflowError", "ArithmeticError", ErrorKind::Value);
  add("FloatingPointError", "ArithmeticError", ErrorKind::Value);
  add("LookupError", "Exception", ErrorKind::Index);
  add("IndexError", "LookupError", ErrorKind::Index);
  add("KeyError", "LookupError", ErrorKind::Index);
  add("ValueError", "Exception", ErrorKind::Value);
  add("TypeError", "Exception", ErrorKind::Type);
  add("AssertionError", "Exception", ErrorKind::Assertion);
  add("NameError", "Exception", ErrorKind::Name);
  add("AttributeError", "Exception", ErrorKind::Name);
  add("RuntimeError", "Exception", ErrorKind::Value);
  add("NotImplementedError", "RuntimeError", ErrorKind::Value);
  add("StopIteration", "Exception", ErrorKind::Value);
  st.in.set_extension(table);
}

bool catchable(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Type: case ErrorKind::Value: case ErrorKind::Index: case ErrorKind::Rule:
    case ErrorKind::Assertion: case ErrorKind::Name: case ErrorKind::UnknownKeyword:
      return true;
    default: return false;  // syntax, unsupported, import, sandbox, host-only, limit, internal
  }
}

[[noreturn]] void raise_value(InterpState& st, const Value& value) {
  Value exc = value;
  if (auto* cls = value.is_object() ? dynamic_cast<ExceptionClassObj*>(value.object().get()) : nullptr) {
    CallArgs none;
    exc = cls->call(st.in, none);
  }
  auto* obj = exc.is_object() ? dynamic_cast<ExceptionObj*>(exc.object().get()) : nullptr;
  if (!obj) throw NkiError(ErrorKind::Type, "exceptions must derive from BaseException");
  std::string text = obj->str();
  NkiError err(obj->cls->kind, obj->cls->name, text.empty() ? obj->cls->name : obj->cls->name + ": " + text);
  err.exception = exc.object();
  throw err;
}

Value exception_value(InterpState& st, const NkiError& e) {
  if (e.exception) return Value(std::static_pointer_cast<Object>(e.exception));
  return Value(std::make_shared<ExceptionObj>(class_of(st, e), std::vector<Value>{make_str(e.diag.message)}));
}

bool exception_matches(InterpState& st, const NkiError& e, const Value& spec) {
  if (auto* t = spec.as<TupleObj>()) {
    for (const Value& item : t->items)
      if (exception_matches(st, e, item)) return true;
    return false;
  }
  auto* cls = spec.is_object() ? dynamic_cast<ExceptionClassObj*>(spec.object().get()) : nullptr;
  if (!cls) throw NkiError(ErrorKind::Type, "catching classes that do not inherit from BaseException is not allowed");
  return class_of(st, e)->is_subclass_of(*cls);
}

std::shared_ptr<ExceptionClassObj> make_exception_subclass(std::string name, std::shared_ptr<ExceptionClassObj> base) {
  ErrorKind kind = base->kind;
  auto cls = std::make_shared<ExceptionClassObj>(std::move(name), std::move(base), kind);
  auto* raw = cls.get();
  cls->construct = [raw](Interpreter&, CallArgs& a) -> Value {
    return Value(std::make_shared<ExceptionObj>(std::static_pointer_cast<ExceptionClassObj>(raw->shared_from_this()), a.args));
  };
  return cls;
}

std::shared_ptr<ExceptionClassObj> library_exception_class(InterpState& st, const std::string& name,
                                                           const std::string& base) {
  ExceptionClasses& c = classes(st);
  if (auto cls = c.get(name)) return cls;
  auto parent = c.get(base);
  if (!parent) throw NkiError(ErrorKind::Internal, fmt::format("no exception class '{}'", base));
  auto cls = make_exception_subclass(name, parent);
  c.by_name[name] = cls;
  return cls;
}

}  // namespace detail
}  // namespace nki
