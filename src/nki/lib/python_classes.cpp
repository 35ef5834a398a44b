// The standard-library class helpers kernel files import: `dataclasses` (dataclass with
// __init__/__repr__/__eq__ from the annotated fields, frozen=, field(default=, default_factory=,
// init=, repr=, compare=), __post_init__, asdict, astuple, replace, fields) and `enum` (Enum and
// IntEnum classes with .name/.value members, auto(), lookup by value and by name, iteration,
// unique). Fields and members come in the order the class body writes them.
#include <fmt/format.h>

#include "nki/classes.h"
#include "nki/core_ops.h"
#include "nki/core_types.h"
#include "nki/interpreter.h"
#include "nki/lib/modules.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

// ---- dataclasses ------------------------------------------------------------------------------

// dataclasses.field(...): the options of one field, replaced by the default when processed.
struct FieldObj : Object {
  Value default_value, factory;
  bool has_default = false, init = true, repr = true, compare = true;
  std::string type_name() const override { return "Field"; }
};

struct FieldSpec {
  std::string name;
  Value default_value, factory;
  bool has_default = false, init = true, repr = true, compare = true;
};

// The fields of a dataclass, base classes' first (kept on the class as a C++ side table).
struct DataclassInfo : Object {
  std::vector<FieldSpec> fields;
  bool frozen = false;
  std::string type_name() const override { return "dataclass_info"; }
};

const DataclassInfo* info_of(const ClassObj& cls) {
  const Value* v = cls.lookup("__dataclass_fields__");
  return v && v->is_object() ? dynamic_cast<const DataclassInfo*>(v->object().get()) : nullptr;
}

InstanceObj& dataclass_instance(const Value& v, std::string_view what) {
  auto* inst = v.is_object() ? dynamic_cast<InstanceObj*>(v.object().get()) : nullptr;
  if (!inst || !info_of(*inst->cls))
    throw NkiError(ErrorKind::Type, fmt::format("{}() should be called on dataclass instances", what));
  return *inst;
}

Value init_fn(std::shared_ptr<DataclassInfo> info, std::string cls_name) {
  std::vector<Param> params{req("self")};
  for (const FieldSpec& f : info->fields)
    if (f.init) params.push_back(f.has_default || !f.factory.is_none() ? Param{f.name, Value(), false} : Param{f.name, std::nullopt, false});
  Signature sig{cls_name + ".__init__", std::move(params), false, false};
  return Value(make_builtin(std::move(sig), [info](Interpreter& in, BoundArgs& a) {
    auto& self = static_cast<InstanceObj&>(*a["self"].object());
    for (const FieldSpec& f : info->fields) {
      Value v;
      if (f.init && a.was_given(f.name)) v = a[f.name];
      else if (!f.factory.is_none()) v = in.call(f.factory, CallArgs{});
      else v = f.default_value;
      self.attrs[f.name] = v;
    }
    if (const Value* post = self.cls->lookup("__post_init__")) {
      CallArgs call;
      call.args.push_back(a["self"]);
      in.call(*post, std::move(call));
    }
    return Value();
  }));
}

Value repr_fn(std::shared_ptr<DataclassInfo> info) {
  return Value(std::make_shared<BuiltinObj>("__repr__", [info](Interpreter&, CallArgs& a) {
    auto& self = static_cast<InstanceObj&>(*a.args.at(0).object());
    std::string out = self.cls->name + "(";
    bool first = true;
    for (const FieldSpec& f : info->fields) {
      if (!f.repr) continue;
      auto it = self.attrs.find(f.name);
      out += (first ? "" : ", ") + f.name + "=" + (it == self.attrs.end() ? "?" : it->second.repr());
      first = false;
    }
    return make_str(out + ")");
  }));
}

Value eq_fn(std::shared_ptr<DataclassInfo> info) {
  return Value(std::make_shared<BuiltinObj>("__eq__", [info](Interpreter& in, CallArgs& a) {
    auto& self = static_cast<InstanceObj&>(*a.args.at(0).object());
    auto* other = a.args.at(1).is_object() ? dynamic_cast<InstanceObj*>(a.args[1].object().get()) : nullptr;
    if (!other || other->cls != self.cls) return Value::from_bool(false);
    for (const FieldSpec& f : info->fields)
      if (f.compare && !in.truthy(in.compare(CmpOp::Eq, self.attrs[f.name], other->attrs[f.name]))) return Value::from_bool(false);
    return Value::from_bool(true);
  }));
}

// order=True: the instances compare as the tuples of their compared fields, and only with
// instances of the same class (anything else is a TypeError, as in Python).
Value order_fn(std::shared_ptr<DataclassInfo> info, CmpOp op, const char* name) {
  return Value(std::make_shared<BuiltinObj>(name, [info, op](Interpreter& in, CallArgs& a) {
    auto& self = static_cast<InstanceObj&>(*a.args.at(0).object());
    auto* other = a.args.at(1).is_object() ? dynamic_cast<InstanceObj*>(a.args[1].object().get()) : nullptr;
    if (!other || other->cls != self.cls)
      throw NkiError(ErrorKind::Type, fmt::format("'{}' not supported between instances of '{}' and '{}'", symbol(op),
                                                  self.cls->name, a.args[1].type_name()));
    std::vector<Value> x, y;
    for (const FieldSpec& f : info->fields)
      if (f.compare) x.push_back(self.attrs[f.name]), y.push_back(other->attrs[f.name]);
    return in.compare(op, make_tuple(std::move(x)), make_tuple(std::move(y)));
  }));
}

Value make_dataclass(Interpreter& in, const Value& cls_v, bool frozen, bool eq, bool repr, bool order) {
  auto cls = std::dynamic_pointer_cast<ClassObj>(cls_v.is_object() ? cls_v.object() : nullptr);
  if (!cls) throw NkiError(ErrorKind::Type, fmt::format("dataclass() should be applied to a class, not {}", cls_v.type_name()));
  auto info = std::make_shared<DataclassInfo>();
  info->frozen = frozen;
  for (const auto& b : cls->bases)
    if (const DataclassInfo* base = info_of(*b)) info->fields = base->fields;
  for (const std::string& name : cls->annotated) {
    FieldSpec f;
    f.name = name;
    auto it = cls->attrs.find(name);
    if (it != cls->attrs.end()) {
      if (auto* fo = it->second.is_object() ? dynamic_cast<FieldObj*>(it->second.object().get()) : nullptr) {
        f.default_value = fo->default_value, f.factory = fo->factory, f.has_default = fo->has_default;
        f.init = fo->init, f.repr = fo->repr, f.compare = fo->compare;
        if (f.has_default) it->second = f.default_value;
        else cls->attrs.erase(it);
      } else {
        f.default_value = it->second, f.has_default = true;
      }
    }
    bool replaced = false;
    for (FieldSpec& old : info->fields)
      if (old.name == name) old = f, replaced = true;
    if (!replaced) info->fields.push_back(f);
  }
  bool seen_default = false;
  for (const FieldSpec& f : info->fields) {
    if (!f.init) continue;
    bool has = f.has_default || !f.factory.is_none();
    if (seen_default && !has)
      throw NkiError(ErrorKind::Type, fmt::format("non-default argument '{}' follows default argument", f.name));
    seen_default = seen_default || has;
  }
  cls->attrs["__dataclass_fields__"] = Value(info);
  if (frozen) cls->attrs["__dataclass_frozen__"] = Value::from_bool(true);
  if (!cls->attrs.count("__init__")) cls->attrs["__init__"] = init_fn(info, cls->name);
  if (repr && !cls->attrs.count("__repr__")) cls->attrs["__repr__"] = repr_fn(info);
  if (eq && !cls->attrs.count("__eq__")) cls->attrs["__eq__"] = eq_fn(info);
  if (order) {
    const std::pair<CmpOp, const char*> methods[] = {
        {CmpOp::Lt, "__lt__"}, {CmpOp::Le, "__le__"}, {CmpOp::Gt, "__gt__"}, {CmpOp::Ge, "__ge__"}};
    for (const auto& [op, name] : methods) {
      if (cls->attrs.count(name))
        throw NkiError(ErrorKind::Type, fmt::format("Cannot overwrite attribute {} in class {}. Consider using "
                                                    "functools.total_ordering", name, cls->name));
      cls->attrs[name] = order_fn(info, op, name);
    }
  }
  return cls_v;
}

Value dataclass_call(Interpreter& in, CallArgs& args) {
  bool frozen = false, eq = true, repr = true, order = false;
  for (auto& [k, v] : args.kwargs) {
    if (k == "frozen") frozen = v.truthy();
    else if (k == "eq") eq = v.truthy();
    else if (k == "repr") repr = v.truthy();
    else if (k == "order") order = v.truthy();
  }
  if (order && !eq) throw NkiError(ErrorKind::Value, "eq must be true if order is true");
  if (args.args.size() == 1) return make_dataclass(in, args.args[0], frozen, eq, repr, order);
  if (!args.args.empty()) throw NkiError(ErrorKind::Type, "dataclass() takes at most one positional argument (the class)");
  // @dataclass(frozen=True): a decorator with these options.
  return Value(std::make_shared<BuiltinObj>("dataclass", [frozen, eq, repr, order](Interpreter& in2, CallArgs& a) {
    if (a.args.size() != 1) throw NkiError(ErrorKind::Type, "dataclass decorator takes the class");
    return make_dataclass(in2, a.args[0], frozen, eq, repr, order);
  }));
}

Value field_fn(Interpreter& in, BoundArgs& a) {
  auto f = std::make_shared<FieldObj>();
  if (a.was_given("default")) f->default_value = a["default"], f->has_default = true;
  f->factory = a["default_factory"];
  if (f->has_default && !f->factory.is_none()) throw NkiError(ErrorKind::Value, "cannot specify both default and default_factory");
  f->init = a["init"].truthy(), f->repr = a["repr"].truthy(), f->compare = a["compare"].truthy();
  return Value(f);
}

// asdict/astuple: the field values (nested dataclasses converted too).
Value field_values(Interpreter& in, const Value& v, bool as_dict) {
  auto* inst = v.is_object() ? dynamic_cast<InstanceObj*>(v.object().get()) : nullptr;
  if (!inst || !info_of(*inst->cls)) return v;
  auto dict = std::make_shared<DictObj>();
  std::vector<Value> items;
  for (const FieldSpec& f : info_of(*inst->cls)->fields) {
    Value x = field_values(in, inst->attrs[f.name], as_dict);
    if (as_dict) core::set_item(in, *dict, make_str(f.name), x);
    else items.push_back(x);
  }
  return as_dict ? Value(dict) : make_tuple(std::move(items));
}

// ---- enum ---------------------------------------------------------------------------------------

struct AutoObj : Object {
  std::string type_name() const override { return "auto"; }
};

// An Enum subclass: its members in definition order, lookup by value (Color(1)) and by name
// (Color['RED']), iteration, len and `in`.
struct EnumClassObj : ClassObj {
  std::vector<Value> members;
  using ClassObj::ClassObj;
  Value call(Interpreter& in, CallArgs& args) override {
    if (args.args.size() != 1 || !args.kwargs.empty())
      throw NkiError(ErrorKind::Type, fmt::format("{}() takes one value", name));
    for (const Value& m : members)
      if (values_equal(static_cast<InstanceObj&>(*m.object()).attrs["value"], args.args[0])) return m;
    throw NkiError(ErrorKind::Value, fmt::format("{} is not a valid {}", args.args[0].repr(), name));
  }
  Value get_item(Interpreter& in, const Value& index) override {
    for (const Value& m : members)
      if (values_equal(static_cast<InstanceObj&>(*m.object()).attrs["name"], index)) return m;
    throw NkiError(ErrorKind::Index, "KeyError", index.repr());
  }
  std::unique_ptr<Iterator> iter(Interpreter& in) override { return std::make_unique<VectorIterator>(members); }
  std::optional<int64_t> length() const override { return int64_t(members.size()); }
  bool contains(Interpreter& in, const Value& v) override {
    for (const Value& m : members)
      if (m.object() == (v.is_object() ? v.object() : nullptr)) return true;
    return false;
  }
  std::string repr() const override { return "<enum '" + name + "'>"; }
};

struct EnumMemberObj : InstanceObj {
  std::string repr() const override {
    auto it = attrs.find("value");
    return "<" + cls->name + "." + attrs.at("name").str() + ": " + (it == attrs.end() ? "" : it->second.repr()) + ">";
  }
  std::string str() const override { return cls->name + "." + attrs.at("name").str(); }
};

bool is_member_value(const std::string& name, const Value& v) {
  if (name.empty() || name[0] == '_') return false;
  if (v.is(ObjType::Function) || v.is(ObjType::Builtin)) return false;
  if (v.is_object() && (dynamic_cast<MethodWrapperObj*>(v.object().get()) || dynamic_cast<TypeObj*>(v.object().get()))) return false;
  return true;
}

// Turns a class deriving from Enum/IntEnum into an EnumClassObj whose members replace the
// values the body assigned.
Value make_enum_class(Interpreter& in, std::shared_ptr<ClassObj> cls, bool int_enum) {
  auto e = std::make_shared<EnumClassObj>(cls->name, cls->bases);
  e->attrs = cls->attrs;
  e->body_order = cls->body_order;
  e->annotated = cls->annotated;
  int64_t next_auto = 1;
  for (const std::string& name : cls->body_order) {
    auto it = e->attrs.find(name);
    if (it == e->attrs.end() || !is_member_value(name, it->second)) continue;
    Value value = it->second;
    if (value.is_object() && dynamic_cast<AutoObj*>(value.object().get())) value = Value::from_int(next_auto);
    if (value.is_int()) next_auto = value.as_int() + 1;
    if (int_enum && !value.is_int() && !value.is_bool())
      throw NkiError(ErrorKind::Type, fmt::format("IntEnum member {}.{} must be an int, not {}", cls->name, name, value.type_name()));
    Value alias;
    for (const Value& m : e->members)
      if (values_equal(static_cast<InstanceObj&>(*m.object()).attrs["value"], value)) alias = m;
    if (!alias.is_none()) {
      it->second = alias;  // a second name for an existing value is an alias
      continue;
    }
    auto member = std::make_shared<EnumMemberObj>();
    member->cls = e;
    member->interp = &in;
    member->attrs["name"] = make_str(name);
    member->attrs["value"] = value;
    if (int_enum) member->scalar_value = value;
    it->second = Value(member);
    e->members.push_back(Value(member));
  }
  return Value(e);
}

std::shared_ptr<ClassObj> enum_base(const std::string& name, bool int_enum) {
  auto base = std::make_shared<ClassObj>(name, std::vector<std::shared_ptr<ClassObj>>{});
  base->subclass_hook = [int_enum](Interpreter& in, std::shared_ptr<ClassObj> cls) {
    return make_enum_class(in, std::move(cls), int_enum);
  };
  return base;
}

// enum.Flag / IntFlag: members combined with | & ^ ~ into values no member names (pseudo-members
// with composite names) are not modelled; a class deriving from them is refused by name.
std::shared_ptr<ClassObj> refused_enum_base(const std::string& name) {
  auto base = std::make_shared<ClassObj>(name, std::vector<std::shared_ptr<ClassObj>>{});
  base->subclass_hook = [name](Interpreter&, std::shared_ptr<ClassObj>) -> Value {
    throw NkiError(ErrorKind::Unsupported, fmt::format("enum.{} is not supported by accelopt: members combined with | "
                                                       "and & into values no member names are not modelled; use an "
                                                       "IntEnum and integer bit masks", name));
  };
  return base;
}

}  // namespace

ObjectPtr make_dataclasses_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("dataclasses");
  m->attrs["dataclass"] = Value(std::make_shared<BuiltinObj>("dataclasses.dataclass", dataclass_call));
  m->attrs["field"] = Value(make_builtin(
      Signature{"dataclasses.field",
                {kwonly("default"), kwonly("default_factory"), kwonly("init", Value::from_bool(true)),
                 kwonly("repr", Value::from_bool(true)), kwonly("compare", Value::from_bool(true))},
                false, false},
      field_fn));
  m->attrs["asdict"] = Value(make_builtin(Signature{"dataclasses.asdict", {req("obj")}, false, false}, [](Interpreter& in, BoundArgs& a) {
    dataclass_instance(a["obj"], "asdict");
    return field_values(in, a["obj"], true);
  }));
  m->attrs["astuple"] = Value(make_builtin(Signature{"dataclasses.astuple", {req("obj")}, false, false}, [](Interpreter& in, BoundArgs& a) {
    dataclass_instance(a["obj"], "astuple");
    return field_values(in, a["obj"], false);
  }));
  m->attrs["replace"] = Value(std::make_shared<BuiltinObj>("dataclasses.replace", [](Interpreter& in, CallArgs& a) {
    if (a.args.size() != 1) throw NkiError(ErrorKind::Type, "replace() takes the instance and keyword changes");
    InstanceObj& inst = dataclass_instance(a.args[0], "replace");
    CallArgs call;
    for (const FieldSpec& f : info_of(*inst.cls)->fields)
      if (f.init) call.kwargs.push_back({f.name, inst.attrs[f.name]});
    for (auto& [k, v] : a.kwargs) {
      bool found = false;
      for (auto& kw : call.kwargs)
        if (kw.first == k) kw.second = v, found = true;
      if (!found) {
        std::string fields;
        for (const auto& kw : call.kwargs) fields += (fields.empty() ? "" : ", ") + kw.first;
        throw unknown_keyword("dataclasses.replace", k, fields);
      }
    }
    return in.call(Value(inst.cls), std::move(call));
  }));
  m->attrs["fields"] = Value(make_builtin(Signature{"dataclasses.fields", {req("class_or_instance")}, false, false},
                                          [](Interpreter& in, BoundArgs& a) {
    const Value& v = a["class_or_instance"];
    auto cls = std::dynamic_pointer_cast<ClassObj>(v.is_object() ? v.object() : nullptr);
    if (!cls) cls = dataclass_instance(v, "fields").cls;
    const DataclassInfo* info = info_of(*cls);
    if (!info) throw NkiError(ErrorKind::Type, "must be called with a dataclass type or instance");
    std::vector<Value> out;
    for (const FieldSpec& f : info->fields) {
      auto ns = std::make_shared<NamespaceObj>("Field");
      ns->set("name", make_str(f.name));
      out.push_back(Value(ns));
    }
    return make_tuple(std::move(out));
  }));
  return m;
}

ObjectPtr make_enum_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("enum");
  m->attrs["Enum"] = Value(enum_base("Enum", false));
  m->attrs["IntEnum"] = Value(enum_base("IntEnum", true));
  for (const char* flag : {"Flag", "IntFlag"}) m->attrs[flag] = Value(refused_enum_base(flag));
  m->attrs["auto"] = Value(std::make_shared<BuiltinObj>("enum.auto", [](Interpreter&, CallArgs& a) {
    if (!a.args.empty() || !a.kwargs.empty()) throw NkiError(ErrorKind::Type, "auto() takes no arguments");
    return Value(std::make_shared<AutoObj>());
  }));
  // @unique: no two names share a value (aliases are refused).
  m->attrs["unique"] = Value(std::make_shared<BuiltinObj>("enum.unique", [](Interpreter&, CallArgs& a) {
    if (a.args.size() != 1) throw NkiError(ErrorKind::Type, "unique() takes the enumeration");
    auto* e = a.args[0].is_object() ? dynamic_cast<EnumClassObj*>(a.args[0].object().get()) : nullptr;
    if (!e) throw NkiError(ErrorKind::Type, "unique() applies to an Enum class");
    for (const std::string& name : e->body_order) {
      auto it = e->attrs.find(name);
      if (it == e->attrs.end()) continue;
      auto* mem = it->second.is_object() ? dynamic_cast<EnumMemberObj*>(it->second.object().get()) : nullptr;
      if (mem && mem->attrs["name"].str() != name)
        throw NkiError(ErrorKind::Value, fmt::format("duplicate values found in {}: {} -> {}", a.args[0].repr(), name, mem->attrs["name"].str()));
    }
    return a.args[0];
  }));
  return m;
}

}  // namespace nki::lib
