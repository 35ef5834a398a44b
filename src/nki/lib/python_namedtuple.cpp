// Named tuples, the configuration records library-style kernels keep their tile sizes in:
// `class Tiles(typing.NamedTuple): rows: int = 128` (fields from the annotations, in order, with
// their defaults; methods of the body kept), `typing.NamedTuple("Tiles", [("rows", int)])` and
// `collections.namedtuple("Tiles", "rows cols", defaults=(512,))`. An instance is an immutable
// tuple with named fields: read by attribute, index, slice, unpacking and iteration, compared as a
// tuple; `_fields`, `_make`, `_replace`, `_asdict`. Nothing else of `collections`
// is a kernel's (its other names are refused as unknown attributes).
#include <algorithm>

#include <fmt/format.h>

#include "nki/classes.h"
#include "nki/core_ops.h"
#include "nki/core_types.h"
#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/modules.h"

namespace nki::lib {

namespace {

struct NamedTupleClassObj : ClassObj {
  std::vector<std::string> fields;
  std::map<std::string, Value, std::less<>> defaults;
  using ClassObj::ClassObj;
  Value call(Interpreter& in, CallArgs& args) override;
  Value make(std::vector<Value> values);
};

struct NamedTupleObj : InstanceObj {
  std::vector<Value> values;

  const NamedTupleClassObj& tuple_class() const { return static_cast<const NamedTupleClassObj&>(*cls); }
  Value as_tuple() const { return make_tuple(values); }

  std::string repr() const override {
    std::string out = cls->name + "(";
    for (size_t i = 0; i < values.size(); ++i)
      out += (i ? ", " : "") + tuple_class().fields[i] + "=" + values[i].repr();
    return out + ")";
  }
  std::string str() const override { return repr(); }
  bool truthy() const override { return !values.empty(); }
  Value get_attr(Interpreter& in, std::string_view name) override {
    if (name == "_replace" || name == "_asdict") {
      auto self = std::static_pointer_cast<NamedTupleObj>(shared_from_this());
      if (name == "_asdict")
        return Value(std::make_shared<BuiltinObj>(cls->name + "._asdict", [self](Interpreter& in2, CallArgs& a) {
          if (!a.args.empty() || !a.kwargs.empty()) throw NkiError(ErrorKind::Type, "_asdict() takes no arguments");
          auto d = std::make_shared<DictObj>();
          for (size_t i = 0; i < self->values.size(); ++i)
            core::set_item(in2, *d, make_str(self->tuple_class().fields[i]), self->values[i]);
          return Value(d);
        }));
      return Value(std::make_shared<BuiltinObj>(cls->name + "._replace", [self](Interpreter&, CallArgs& a) {
        if (!a.args.empty()) throw NkiError(ErrorKind::Type, "_replace() takes keyword arguments only");
        std::vector<Value> values = self->values;
        const auto& fields = self->tuple_class().fields;
        for (auto& [k, v] : a.kwargs) {
          auto it = std::find(fields.begin(), fields.end(), k);
          if (it == fields.end())
            throw NkiError(ErrorKind::Value, fmt::format("Got unexpected field names: ['{}']", k));
          values[it - fields.begin()] = v;
        }
        return std::static_pointer_cast<NamedTupleClassObj>(self->cls)->make(std::move(values));
      }));
    }
    return InstanceObj::get_attr(in, name);
  }
  void set_attr(Interpreter&, std::string_view name, const Value&) override {
    throw NkiError(ErrorKind::Name, "AttributeError", "can't set attribute");
  }
  Value get_item(Interpreter& in, const Value& index) override { return in.get_item(as_tuple(), index); }
  std::unique_ptr<Iterator> iter(Interpreter&) override { return std::make_unique<VectorIterator>(values); }
  std::optional<int64_t> length() const override { return int64_t(values.size()); }
  bool contains(Interpreter& in, const Value& v) override {
    for (const Value& x : values)
      if (in.truthy(in.compare(CmpOp::Eq, x, v))) return true;
    return false;
  }
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override {
    Value rhs = other;
    if (auto* o = other.is_object() ? dynamic_cast<NamedTupleObj*>(other.object().get()) : nullptr) rhs = o->as_tuple();
    return reflected ? in.compare(op, rhs, as_tuple()) : in.compare(op, as_tuple(), rhs);
  }
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override {
    return reflected ? in.binary(op, other, as_tuple()) : in.binary(op, as_tuple(), other);
  }
};

Value NamedTupleClassObj::make(std::vector<Value> values) {
  auto inst = std::make_shared<NamedTupleObj>();
  inst->cls = std::static_pointer_cast<ClassObj>(shared_from_this());
  for (size_t i = 0; i < fields.size(); ++i) inst->attrs[fields[i]] = values[i];
  inst->values = std::move(values);
  return Value(inst);
}

// Binds the arguments to the fields as `__new__(cls, f1, f2=default, ...)` does.
Value NamedTupleClassObj::call(Interpreter& in, CallArgs& args) {
  if (args.args.size() > fields.size())
    throw NkiError(ErrorKind::Type, fmt::format("{}() takes {} positional arguments but {} were given", name,
                                                fields.size(), args.args.size()));
  std::vector<std::optional<Value>> got(fields.size());
  for (size_t i = 0; i < args.args.size(); ++i) got[i] = args.args[i];
  for (auto& [k, v] : args.kwargs) {
    auto it = std::find(fields.begin(), fields.end(), k);
    if (it == fields.end())
      throw NkiError(ErrorKind::Type, fmt::format("{}() got an unexpected keyword argument '{}'", name, k));
    auto& slot = got[it - fields.begin()];
    if (slot) throw NkiError(ErrorKind::Type, fmt::format("{}() got multiple values for argument '{}'", name, k));
    slot = v;
  }
  std::vector<Value> values;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!got[i]) {
      auto d = defaults.find(fields[i]);
      if (d == defaults.end())
        throw NkiError(ErrorKind::Type, fmt::format("{}.__new__() missing 1 required positional argument: '{}'", name, fields[i]));
      got[i] = d->second;
    }
    values.push_back(*got[i]);
  }
  return make(std::move(values));
}

// A named-tuple class of `fields` with `defaults` (a default must not precede a field without
// one); `attrs` are the other names a class body bound (its methods).
Value named_tuple_class(const std::string& name, std::vector<std::string> fields,
                        std::map<std::string, Value, std::less<>> defaults,
                        std::map<std::string, Value, std::less<>> attrs = {}) {
  bool seen_default = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    if (f.empty() || f[0] == '_')
      throw NkiError(ErrorKind::Value, fmt::format("Field names cannot start with an underscore: '{}'", f));
    if (std::find(fields.begin(), fields.begin() + i, f) != fields.begin() + i)
      throw NkiError(ErrorKind::Value, fmt::format("Encountered duplicate field name: '{}'", f));
    if (seen_default && !defaults.count(f))
      throw NkiError(ErrorKind::Type, fmt::format("Non-default namedtuple field {} cannot follow default field", f));
    seen_default = seen_default || defaults.count(f);
  }
  auto cls = std::make_shared<NamedTupleClassObj>(name, std::vector<std::shared_ptr<ClassObj>>{});
  cls->attrs = std::move(attrs);
  std::vector<Value> names;
  for (const std::string& f : fields) names.push_back(make_str(f));
  cls->attrs["_fields"] = make_tuple(std::move(names));
  cls->fields = std::move(fields);
  cls->defaults = std::move(defaults);
  std::weak_ptr<NamedTupleClassObj> weak = cls;
  cls->attrs["_make"] = Value(std::make_shared<BuiltinObj>(name + "._make", [weak](Interpreter& in, CallArgs& a) {
    auto c = weak.lock();
    if (!c || a.args.size() != 1 || !a.kwargs.empty()) throw NkiError(ErrorKind::Type, "_make() takes one iterable");
    CallArgs call;
    auto it = in.iterate(a.args[0]);
    for (Value v; it->next(v);) call.args.push_back(v);
    if (call.args.size() != c->fields.size())
      throw NkiError(ErrorKind::Type, fmt::format("Expected {} arguments, got {}", c->fields.size(), call.args.size()));
    return c->call(in, call);
  }));
  return Value(cls);
}

// The field names of `collections.namedtuple`: a string split at commas and spaces, or strings.
std::vector<std::string> field_names(Interpreter& in, const Value& v) {
  std::vector<std::string> out;
  if (v.is(ObjType::Str)) {
    std::string cur;
    for (char c : v.str() + " ") {
      if (c == ',' || c == ' ' || c == '\t' || c == '\n') {
        if (!cur.empty()) out.push_back(cur), cur.clear();
      } else {
        cur += c;
      }
    }
    return out;
  }
  auto it = in.iterate(v);
  for (Value x; it->next(x);) {
    if (!x.is(ObjType::Str)) throw NkiError(ErrorKind::Type, "Type names and field names must be strings");
    out.push_back(x.str());
  }
  return out;
}

// `class Name(NamedTuple):` (the hook) and `NamedTuple("Name", [("field", type), ...])`.
struct NamedTupleBaseObj : ClassObj {
  using ClassObj::ClassObj;
  Value call(Interpreter& in, CallArgs& args) override {
    if (args.args.size() != 2 || !args.args[0].is(ObjType::Str))
      throw NkiError(ErrorKind::Type, "NamedTuple() takes a name and a list of (name, type) pairs");
    std::vector<std::string> fields;
    auto it = in.iterate(args.args[1]);
    for (Value pair; it->next(pair);) {
      Value first = in.get_item(pair, Value::from_int(0));
      if (!first.is(ObjType::Str)) throw NkiError(ErrorKind::Type, "NamedTuple() field names must be strings");
      fields.push_back(first.str());
    }
    return named_tuple_class(args.args[0].str(), std::move(fields), {});
  }
};

}  // namespace

Value make_typing_named_tuple() {
  auto base = std::make_shared<NamedTupleBaseObj>("NamedTuple", std::vector<std::shared_ptr<ClassObj>>{});
  base->subclass_hook = [](Interpreter&, std::shared_ptr<ClassObj> cls) {
    std::map<std::string, Value, std::less<>> defaults, attrs = cls->attrs;
    for (const std::string& f : cls->annotated) {
      auto it = attrs.find(f);
      if (it == attrs.end()) continue;
      defaults[f] = it->second;
      attrs.erase(it);
    }
    return named_tuple_class(cls->name, cls->annotated, std::move(defaults), std::move(attrs));
  };
  return Value(base);
}

ObjectPtr make_collections_module(Interpreter&) {
  auto m = std::make_shared<ModuleObj>("collections");
  m->attrs["namedtuple"] = Value(make_builtin(
      Signature{"collections.namedtuple",
                {req("typename"), req("field_names"), kwonly("rename", Value::from_bool(false)), kwonly("defaults"),
                 kwonly("module")},
                false, false},
      [](Interpreter& in, BoundArgs& a) {
        if (!a["typename"].is(ObjType::Str)) throw NkiError(ErrorKind::Type, "namedtuple() typename must be a string");
        if (a["rename"].truthy())
          throw NkiError(ErrorKind::Unsupported, "namedtuple(rename=True) is not supported by accelopt: name the fields");
        std::vector<std::string> fields = field_names(in, a["field_names"]);
        std::map<std::string, Value, std::less<>> defaults;
        if (!a["defaults"].is_none()) {
          std::vector<Value> given;
          auto it = in.iterate(a["defaults"]);
          for (Value v; it->next(v);) given.push_back(v);
          if (given.size() > fields.size()) throw NkiError(ErrorKind::Type, "Got more default values than field names");
          for (size_t i = 0; i < given.size(); ++i) defaults[fields[fields.size() - given.size() + i]] = given[i];
        }
        return named_tuple_class(a["typename"].str(), std::move(fields), std::move(defaults));
      }));
  return m;
}

}  // namespace nki::lib
