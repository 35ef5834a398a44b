// The interpreter's value model, shared by the language core (src/nki) and the builtin modules
// (src/nki/lib: numpy, math, nki.language, nki.isa).
//
// Value is a small tagged union: None, bool, int (int64), float (double) inline, everything else
// a reference-counted Object. Objects implement Python protocols through virtual methods; a
// method that an object does not support throws a Type error with Python's wording.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nki/diagnostics.h"
#include "nki/key_index.h"
#include "nki/small_vec.h"

namespace nki {

class Interpreter;
class Object;
using ObjectPtr = std::shared_ptr<Object>;

enum class BinOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitAnd, BitOr, BitXor,
};
enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
enum class UnOp : uint8_t { Neg, Pos, Not, Invert };
const char* symbol(BinOp op);  // "+", "@", ...
const char* symbol(CmpOp op);
const char* symbol(UnOp op);

// Fast type tags for the objects the core and the libraries check most often.
enum class ObjType : uint16_t {
  Str, Tuple, List, Dict, Slice, Ellipsis, Function, Builtin, BoundMethod, Module, Range,
  Iterator, DType, NdArray, NkiTensor, IndexExpr, Other,
};

class Value {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Float, Object };

  Value() : kind_(Kind::None), i_(0) {}
  static Value none() { return Value(); }
  static Value from_bool(bool b) { Value v; v.kind_ = Kind::Bool; v.b_ = b; return v; }
  static Value from_int(int64_t i) { Value v; v.kind_ = Kind::Int; v.i_ = i; return v; }
  static Value from_float(double f) { Value v; v.kind_ = Kind::Float; v.f_ = f; return v; }
  Value(ObjectPtr obj);  // NOLINT(google-explicit-constructor): objects convert freely

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_number() const { return kind_ == Kind::Bool || kind_ == Kind::Int || kind_ == Kind::Float; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is(ObjType t) const;

  bool as_bool() const { return b_; }
  int64_t as_int() const { return kind_ == Kind::Bool ? int64_t(b_) : i_; }  // bool or int
  double as_float() const;                                                    // any number
  const ObjectPtr& object() const { return obj_; }
  // Moves the object out (the value becomes None): lets a dying container hand its objects to
  // an iterative release (nki/nesting.h).
  ObjectPtr take_object() {
    kind_ = Kind::None;
    return std::move(obj_);
  }
  // Typed access: nullptr when the value is not an object of type T (T declares kType).
  template <class T>
  T* as() const;

  std::string type_name() const;  // Python's type name: "int", "list", "ndarray", ...
  std::string repr() const;
  std::string str() const;
  bool truthy() const;

 private:
  Kind kind_;
  union {
    bool b_;
    int64_t i_;
    double f_;
  };
  ObjectPtr obj_;
};

// ---- calls --------------------------------------------------------------------------------------
struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
};

struct Param {
  std::string name;
  std::optional<Value> default_value;  // nullopt = required
  bool keyword_only = false;
};
struct Signature {
  std::string name;  // "nl.load" (for messages)
  std::vector<Param> params;
  bool var_args = false;    // accepts extra positionals (BoundArgs::rest)
  bool var_kwargs = false;  // accepts unknown keywords (BoundArgs::extra_kwargs), e.g. name=, **kwargs
};
// Arguments bound to a signature's parameters, by position in `params`.
// `values` and `given` are inline for up to 12 parameters (every hot library signature, e.g.
// nisa.nc_matmul has 10): two heap allocations per builtin call were ~10% of trace-only run
// time with malloc/free.
struct BoundArgs {
  const Signature* sig = nullptr;
  SmallVec<Value, 12> values;
  SmallVec<bool, 12> given;  // passed explicitly by the caller
  std::vector<Value> rest;
  std::vector<std::pair<std::string, Value>> extra_kwargs;
  const Value& operator[](std::string_view name) const;  // throws Internal on unknown name
  bool was_given(std::string_view name) const;
};
// Python's binding rules and messages ("nl.load() got an unexpected keyword argument 'x'",
// "missing 1 required positional argument: 'src'").
BoundArgs bind_args(const Signature& sig, const CallArgs& call);

// ---- objects ------------------------------------------------------------------------------------
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual bool next(Value& out) = 0;  // false when exhausted
};

class Object : public std::enable_shared_from_this<Object> {
 public:
  virtual ~Object() = default;
  virtual ObjType type() const { return ObjType::Other; }
  virtual std::string type_name() const = 0;
  virtual std::string repr() const;
  virtual std::string str() const { return repr(); }  // str(x) / print(x); differs for ndarrays
  virtual bool truthy() const { return true; }

  virtual Value get_attr(Interpreter& in, std::string_view name);
  virtual bool has_attr(std::string_view name) const { return false; }
  // `self.name = value` (instances of user classes); other objects refuse.
  virtual void set_attr(Interpreter& in, std::string_view name, const Value& value);
  virtual Value call(Interpreter& in, CallArgs& args);
  virtual Value get_item(Interpreter& in, const Value& index);
  virtual void set_item(Interpreter& in, const Value& index, const Value& value);
  virtual void del_item(Interpreter& in, const Value& index);  // `del self[index]`
  // The context-manager protocol of `with`: enter() gives the `as` value; exit() runs when the
  // block is left (`failing`: by an exception, which is never suppressed).
  virtual Value enter(Interpreter& in);
  virtual void exit(Interpreter& in, bool failing) {}
  // `self[index] op= value`; return false to let the interpreter do get_item/op/set_item.
  virtual bool aug_set_item(Interpreter& in, BinOp op, const Value& index, const Value& value) { return false; }
  // `name op= value` where name holds this object: return the new value of the name
  // (self for an in-place update, as numpy arrays and NKI tiles do), or nullopt for `name = name op value`.
  virtual std::optional<Value> inplace_op(Interpreter& in, BinOp op, const Value& value) { return std::nullopt; }
  // Operators where this object is the left (reflected=false) or right operand; nullopt = not supported.
  virtual std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) { return std::nullopt; }
  virtual std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) { return std::nullopt; }
  virtual std::optional<Value> unary_op(Interpreter& in, UnOp op) { return std::nullopt; }
  virtual std::unique_ptr<Iterator> iter(Interpreter& in);
  virtual std::optional<int64_t> length() const { return std::nullopt; }
  virtual bool contains(Interpreter& in, const Value& v);
  // Identity by default; strings, tuples and dtypes compare by value.
  virtual bool equals(const Object& other) const { return this == &other; }
  virtual size_t hash() const { return std::hash<const void*>()(this); }
};

// Inline (both are on every object value and type check, across the library boundary).
inline Value::Value(ObjectPtr obj) : kind_(obj ? Kind::Object : Kind::None), i_(0), obj_(std::move(obj)) {}
inline bool Value::is(ObjType t) const { return kind_ == Kind::Object && obj_ && obj_->type() == t; }

template <class T>
T* Value::as() const {
  if (kind_ != Kind::Object || !obj_ || obj_->type() != T::kType) return nullptr;
  return static_cast<T*>(obj_.get());
}

// ---- core object types ----------------------------------------------------------------------
// The heap bytes of a container, charged to the memory limit of the run that created or grew it
// (tensor::AllocationBudget, which arrays use too) and credited back when it is freed: lists,
// tuples, dicts, sets and strings count against Limits::max_bytes like arrays. A copy starts
// uncharged (it charges itself when constructed).
class MemoryCharge {
 public:
  MemoryCharge() = default;
  MemoryCharge(const MemoryCharge&) {}
  MemoryCharge& operator=(const MemoryCharge&) { return *this; }
  ~MemoryCharge();
  // Charges or credits the difference to `bytes`. Throws tensor::BudgetExceeded over the limit.
  void set(uint64_t bytes);

 private:
  uint64_t charged_ = 0;
};

struct StrObj : Object {
  static constexpr ObjType kType = ObjType::Str;
  std::string s;
  MemoryCharge charge;
  explicit StrObj(std::string v) : s(std::move(v)) { charge.set(sizeof(StrObj) + s.capacity()); }
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "str"; }
  std::string repr() const override;
  bool truthy() const override { return !s.empty(); }
  std::optional<int64_t> length() const override { return int64_t(s.size()); }
  bool equals(const Object& o) const override;
  size_t hash() const override { return std::hash<std::string>()(s); }
};

struct TupleObj : Object {
  static constexpr ObjType kType = ObjType::Tuple;
  std::vector<Value> items;
  MemoryCharge charge;
  explicit TupleObj(std::vector<Value> v) : items(std::move(v)) { charge.set(sizeof(TupleObj) + items.capacity() * sizeof(Value)); }
  ~TupleObj() override;
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "tuple"; }
  std::string repr() const override;
  bool truthy() const override { return !items.empty(); }
  std::optional<int64_t> length() const override { return int64_t(items.size()); }
  bool equals(const Object& o) const override;
  size_t hash() const override;
};

struct ListObj : Object {
  static constexpr ObjType kType = ObjType::List;
  std::vector<Value> items;
  MemoryCharge charge;
  explicit ListObj(std::vector<Value> v = {}) : items(std::move(v)) { meter(); }
  // After the items grew or shrank: charge what they hold now.
  void meter() { charge.set(sizeof(ListObj) + items.capacity() * sizeof(Value)); }
  ~ListObj() override;
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "list"; }
  std::string repr() const override;
  bool truthy() const override { return !items.empty(); }
  std::optional<int64_t> length() const override { return int64_t(items.size()); }
};

struct DictObj : Object {
  static constexpr ObjType kType = ObjType::Dict;
  // Insertion-ordered; keys compared with value equality (strings, ints, tuples). Appending to
  // `items` needs nothing more (find() indexes new keys); removing one goes through erase().
  std::vector<std::pair<Value, Value>> items;
  MemoryCharge charge;
  ~DictObj() override;
  void meter() { charge.set(sizeof(DictObj) + items.capacity() * sizeof(items[0]) + index.bytes()); }
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "dict"; }
  std::string repr() const override;
  bool truthy() const override { return !items.empty(); }
  std::optional<int64_t> length() const override { return int64_t(items.size()); }
  bool equals(const Object& other) const override;  // same keys, equal values (any order)
  Value* find(const Value& key);
  size_t position(const Value& key);  // of the key equal to `key`, or KeyIndex::npos
  void erase(size_t position);

 private:
  KeyIndex index;
};

struct SliceObj : Object {
  static constexpr ObjType kType = ObjType::Slice;
  Value start, stop, step;  // None or int (or index expressions, resolved by the library)
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "slice"; }
  std::string repr() const override;
};

struct EllipsisObj : Object {
  static constexpr ObjType kType = ObjType::Ellipsis;
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "ellipsis"; }
  std::string repr() const override { return "Ellipsis"; }
  static const ObjectPtr& instance();
};

using NativeFn = std::function<Value(Interpreter&, CallArgs&)>;

// A function implemented in C++ (builtins and library APIs).
struct BuiltinObj : Object {
  static constexpr ObjType kType = ObjType::Builtin;
  std::string name;  // qualified: "nl.load", "np.exp", "len"
  NativeFn fn;
  BuiltinObj(std::string n, NativeFn f) : name(std::move(n)), fn(std::move(f)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "builtin_function_or_method"; }
  std::string repr() const override { return "<built-in function " + name + ">"; }
  Value call(Interpreter& in, CallArgs& args) override { return fn(in, args); }
  // The signature the arguments are bound to (make_builtin); null when `fn` reads CallArgs itself.
  virtual const Signature* signature() const { return nullptr; }
};
// A builtin whose arguments are bound to `sig` before `fn` runs.
ObjectPtr make_builtin(Signature sig, std::function<Value(Interpreter&, BoundArgs&)> fn);

// A module: a namespace of attributes (builtin modules and loaded source files).
struct ModuleObj : Object {
  static constexpr ObjType kType = ObjType::Module;
  std::string name;
  std::map<std::string, Value, std::less<>> attrs;
  explicit ModuleObj(std::string n) : name(std::move(n)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "module"; }
  std::string repr() const override { return "<module '" + name + "'>"; }
  Value get_attr(Interpreter& in, std::string_view attr) override;
  bool has_attr(std::string_view attr) const override { return attrs.count(attr) > 0; }
};

// ---- helpers for builtins ---------------------------------------------------------------------
Value make_str(std::string s);
Value make_tuple(std::vector<Value> items);
Value make_list(std::vector<Value> items);
// Python int from a Value (bool/int; also size-1 integer arrays and numpy integer scalars when
// the library registers a converter); throws a Type error naming `what`.
int64_t to_int(const Value& v, std::string_view what);
double to_float(const Value& v, std::string_view what);
std::vector<int64_t> to_int_list(const Value& v, std::string_view what);  // int, tuple or list of ints
bool values_equal(const Value& a, const Value& b);

// Libraries register how their scalar-like objects (numpy scalars, size-1 arrays) become Python
// numbers, so that range(n), int(x), list indices and to_int accept them. Set once, before runs.
using ScalarConverter = std::optional<Value> (*)(const Value&);
void register_scalar_converter(ScalarConverter fn);
// bool/int/float as they are; other objects through the registered converter; else nullopt.
std::optional<Value> to_python_scalar(const Value& v);
// Python's float formatting (repr(0.1) == "0.1", "1e-05", "inf").
std::string float_repr(double d);

}  // namespace nki
