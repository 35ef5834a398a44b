// User-defined classes in kernel files (small helpers such as an allocator or a tile spec):
// a class object holding the names its body bound, instances with their own attributes, and
// methods bound to their instance. Single inheritance chains and a few protocol methods
// (__init__, __repr__, __str__, __call__, __getitem__, __len__, __enter__, __exit__, __eq__);
// staticmethod/classmethod/property decorators; no metaclasses, other descriptors or reflection.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "nki/type_object.h"

namespace nki {

struct ClassObj;
// Set on a library base class (enum.Enum): called with every class deriving from it, it returns
// the class object the class statement binds (the part of a metaclass those bases need).
using SubclassHook = std::function<Value(Interpreter&, std::shared_ptr<ClassObj>)>;

struct ClassObj : TypeObj {
  std::vector<std::shared_ptr<ClassObj>> bases;
  std::map<std::string, Value, std::less<>> attrs;
  std::vector<std::string> body_order;  // names bound at the top of the class body, in order
  std::vector<std::string> annotated;   // `name: annotation [= value]` in the body, in order (not ClassVar)
  SubclassHook subclass_hook;
  ClassObj(std::string name, std::vector<std::shared_ptr<ClassObj>> bases);
  // The attribute in this class or its bases (depth-first, left to right).
  const Value* lookup(std::string_view name) const;
  bool derives_from(const ClassObj& other) const;
  // The hook of the nearest base that has one (null when none does).
  const SubclassHook* find_hook() const;
  Value call(Interpreter& in, CallArgs& args) override;  // a new instance, __init__ called
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override { return lookup(name) != nullptr; }
  void set_attr(Interpreter& in, std::string_view name, const Value& value) override;
};

struct InstanceObj : Object {
  std::shared_ptr<ClassObj> cls;
  std::map<std::string, Value, std::less<>> attrs;
  // An instance that is also a number (IntEnum members): operators, comparisons and int()
  // use this value.
  std::optional<Value> scalar_value;
  Interpreter* interp = nullptr;  // for protocol methods reached through const virtuals (repr)
  std::string type_name() const override { return cls->name; }
  std::string repr() const override;
  std::string str() const override;
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  void set_attr(Interpreter& in, std::string_view name, const Value& value) override;
  Value call(Interpreter& in, CallArgs& args) override;
  Value get_item(Interpreter& in, const Value& index) override;
  std::optional<int64_t> length() const override;
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
  Value enter(Interpreter& in) override;
  void exit(Interpreter& in, bool failing) override;

 private:
  // Calls the protocol method `name` if the class defines it.
  std::optional<Value> call_method(Interpreter& in, std::string_view name, std::vector<Value> args) const;
};

// A function bound to an instance: calling it passes the instance first.
struct BoundMethodObj : Object {
  static constexpr ObjType kType = ObjType::BoundMethod;
  Value self, fn;
  BoundMethodObj(Value s, Value f) : self(std::move(s)), fn(std::move(f)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "method"; }
  std::string repr() const override { return "<bound method " + fn.repr() + ">"; }
  Value call(Interpreter& in, CallArgs& args) override;
};

// staticmethod(f), classmethod(f), property(f) in a class body: how the class and its instances
// hand out `f` (as is, bound to the class, or called with the instance). A property may have a
// setter (`@x.setter`, property(fget, fset)): assigning the attribute on an instance calls it.
struct MethodWrapperObj : Object {
  enum class Kind { Static, Class, Property };
  Kind kind;
  Value fn;
  Value setter;  // Property only; None: read-only
  MethodWrapperObj(Kind k, Value f, Value s = Value()) : kind(k), fn(std::move(f)), setter(std::move(s)) {}
  // property.setter / property.getter: decorators giving a new property with that function.
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  std::string type_name() const override {
    return kind == Kind::Static ? "staticmethod" : kind == Kind::Class ? "classmethod" : "property";
  }
  // The attribute as `owner.name` gives it: owner is the instance (or None on the class).
  Value bind(Interpreter& in, const Value& instance, const Value& cls) const;
};

// Protocol methods a class body may define although dunder names are otherwise refused.
bool is_protocol_method(std::string_view name);

}  // namespace nki
