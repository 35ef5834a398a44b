#include "nki/classes.h"

#include <fmt/core.h>

#include "nki/interp_impl.h"

namespace nki {

bool is_protocol_method(std::string_view name) {
  static const char* names[] = {"__init__", "__repr__", "__str__", "__call__", "__getitem__",
                                "__len__", "__enter__", "__exit__", "__eq__", "__post_init__",
                                "__lt__", "__le__", "__gt__", "__ge__"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

ClassObj::ClassObj(std::string n, std::vector<std::shared_ptr<ClassObj>> b) : TypeObj(std::move(n), nullptr), bases(std::move(b)) {
  instance_check = [this](const Value& v) {
    auto* inst = v.is_object() ? dynamic_cast<InstanceObj*>(v.object().get()) : nullptr;
    return inst && inst->cls->derives_from(*this);
  };
}

const Value* ClassObj::lookup(std::string_view name) const {
  auto it = attrs.find(name);
  if (it != attrs.end()) return &it->second;
  for (const auto& b : bases)
    if (const Value* v = b->lookup(name)) return v;
  return nullptr;
}

const SubclassHook* ClassObj::find_hook() const {
  for (const auto& b : bases) {
    if (b->subclass_hook) return &b->subclass_hook;
    if (const SubclassHook* h = b->find_hook()) return h;
  }
  return nullptr;
}

bool ClassObj::derives_from(const ClassObj& other) const {
  if (this == &other) return true;
  for (const auto& b : bases)
    if (b->derives_from(other)) return true;
  return false;
}

Value ClassObj::call(Interpreter& in, CallArgs& args) {
  auto inst = std::make_shared<InstanceObj>();
  inst->cls = std::static_pointer_cast<ClassObj>(shared_from_this());
  inst->interp = &in;
  if (const Value* init = lookup("__init__")) {
    CallArgs call = args;
    call.args.insert(call.args.begin(), Value(inst));
    Value r = in.call(*init, std::move(call));
    if (!r.is_none()) throw NkiError(ErrorKind::Type, fmt::format("__init__() should return None, not '{}'", r.type_name()));
  } else if (!args.args.empty() || !args.kwargs.empty()) {
    throw NkiError(ErrorKind::Type, fmt::format("{}() takes no arguments", name));
  }
  return Value(inst);
}

Value MethodWrapperObj::bind(Interpreter& in, const Value& instance, const Value& cls) const {
  switch (kind) {
    case Kind::Static: return fn;
    case Kind::Class: return Value(std::make_shared<BoundMethodObj>(cls, fn));
    case Kind::Property:
      if (instance.is_none()) return Value(std::const_pointer_cast<Object>(shared_from_this()));
      CallArgs call;
      call.args.push_back(instance);
      return in.call(fn, std::move(call));
  }
  return fn;
}

bool MethodWrapperObj::has_attr(std::string_view name) const {
  return kind == Kind::Property && (name == "setter" || name == "getter" || name == "fget" || name == "fset");
}

Value MethodWrapperObj::get_attr(Interpreter& in, std::string_view name) {
  if (!has_attr(name)) return Object::get_attr(in, name);
  if (name == "fget") return fn;
  if (name == "fset") return setter;
  bool set = name == "setter";
  Value getter = fn, old_setter = setter;
  return Value(std::make_shared<BuiltinObj>("property." + std::string(name), [set, getter, old_setter](Interpreter&, CallArgs& a) {
    if (a.args.size() != 1 || !a.kwargs.empty())
      throw NkiError(ErrorKind::Type, "property decorators take exactly one argument (the function)");
    return Value(std::make_shared<MethodWrapperObj>(Kind::Property, set ? getter : a.args[0], set ? a.args[0] : old_setter));
  }));
}

namespace {
const MethodWrapperObj* as_wrapper(const Value& v) {
  return v.is_object() ? dynamic_cast<const MethodWrapperObj*>(v.object().get()) : nullptr;
}
}  // namespace

Value ClassObj::get_attr(Interpreter& in, std::string_view n) {
  if (const Value* v = lookup(n)) {
    if (auto* w = as_wrapper(*v)) return w->bind(in, Value(), Value(shared_from_this()));
    return *v;
  }
  throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("type object '{}' has no attribute '{}'", name, n));
}

void ClassObj::set_attr(Interpreter& in, std::string_view n, const Value& value) { attrs[std::string(n)] = value; }

Value InstanceObj::get_attr(Interpreter& in, std::string_view name) {
  auto it = attrs.find(name);
  if (it != attrs.end()) return it->second;
  if (const Value* v = cls->lookup(name)) {
    if (v->is(ObjType::Function)) return Value(std::make_shared<BoundMethodObj>(Value(shared_from_this()), *v));
    if (auto* w = as_wrapper(*v)) return w->bind(in, Value(shared_from_this()), Value(cls));
    return *v;
  }
  throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("'{}' object has no attribute '{}'", cls->name, name));
}

bool InstanceObj::has_attr(std::string_view name) const { return attrs.count(name) || cls->lookup(name); }

void InstanceObj::set_attr(Interpreter& in, std::string_view name, const Value& value) {
  if (const Value* frozen = cls->lookup("__dataclass_frozen__"); frozen && frozen->truthy())
    throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("cannot assign to field '{}'", name));
  if (const Value* v = cls->lookup(name); v && !attrs.count(name)) {
    if (auto* w = as_wrapper(*v); w && w->kind == MethodWrapperObj::Kind::Property) {
      if (w->setter.is_none())
        throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("can't set attribute '{}'", name));
      CallArgs call;
      call.args.push_back(Value(shared_from_this()));
      call.args.push_back(value);
      in.call(w->setter, std::move(call));
      return;
    }
  }
  attrs[std::string(name)] = value;
}

std::optional<Value> InstanceObj::call_method(Interpreter& in, std::string_view name, std::vector<Value> args) const {
  const Value* fn = cls->lookup(name);
  if (!fn) return std::nullopt;
  CallArgs call;
  call.args.push_back(Value(std::const_pointer_cast<Object>(shared_from_this())));
  for (auto& a : args) call.args.push_back(std::move(a));
  return in.call(*fn, std::move(call));
}

std::string InstanceObj::repr() const {
  if (interp)
    if (auto r = call_method(*interp, "__repr__", {})) return r->str();
  return fmt::format("<{} object>", cls->name);
}

std::string InstanceObj::str() const {
  if (interp)
    if (auto r = call_method(*interp, "__str__", {})) return r->str();
  return repr();
}

Value InstanceObj::call(Interpreter& in, CallArgs& args) {
  const Value* fn = cls->lookup("__call__");
  if (!fn) return Object::call(in, args);
  CallArgs call = args;
  call.args.insert(call.args.begin(), Value(shared_from_this()));
  return in.call(*fn, std::move(call));
}

Value InstanceObj::get_item(Interpreter& in, const Value& index) {
  if (auto r = call_method(in, "__getitem__", {index})) return *r;
  return Object::get_item(in, index);
}

std::optional<int64_t> InstanceObj::length() const {
  if (!interp) return std::nullopt;
  auto r = call_method(*interp, "__len__", {});
  if (!r) return std::nullopt;
  return to_int(*r, "__len__() result");
}

std::optional<Value> InstanceObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  if (!scalar_value) return std::nullopt;
  return reflected ? in.binary(op, other, *scalar_value) : in.binary(op, *scalar_value, other);
}

std::optional<Value> InstanceObj::compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) {
  if (scalar_value) {
    auto* o = other.is_object() ? dynamic_cast<InstanceObj*>(other.object().get()) : nullptr;
    Value rhs = o && o->scalar_value ? *o->scalar_value : other;
    return reflected ? in.compare(op, rhs, *scalar_value) : in.compare(op, *scalar_value, rhs);
  }
  if (op != CmpOp::Eq && op != CmpOp::Ne) {
    // `a < b` calls a.__lt__(b); when this instance is the right operand (reflected), b.__gt__(a).
    CmpOp own = op;
    if (reflected) own = op == CmpOp::Lt ? CmpOp::Gt : op == CmpOp::Gt ? CmpOp::Lt : op == CmpOp::Le ? CmpOp::Ge : CmpOp::Le;
    const char* name = own == CmpOp::Lt ? "__lt__" : own == CmpOp::Le ? "__le__" : own == CmpOp::Gt ? "__gt__" : "__ge__";
    return call_method(in, name, {other});
  }
  auto r = call_method(in, "__eq__", {other});
  if (!r) return std::nullopt;
  return op == CmpOp::Eq ? *r : Value::from_bool(!in.truthy(*r));
}

Value InstanceObj::enter(Interpreter& in) {
  if (auto r = call_method(in, "__enter__", {})) return *r;
  return Object::enter(in);
}

void InstanceObj::exit(Interpreter& in, bool failing) { call_method(in, "__exit__", {Value(), Value(), Value()}); }

Value BoundMethodObj::call(Interpreter& in, CallArgs& args) {
  CallArgs call = args;
  call.args.insert(call.args.begin(), self);
  return in.call(fn, std::move(call));
}

}  // namespace nki
