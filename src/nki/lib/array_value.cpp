// dtype objects, numpy scalars and arrays as interpreter values, and Value <-> Array conversion.
#include "nki/lib/array_value.h"

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/type_object.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib {

using tensor::Array;
using tensor::DType;

// ---- dtype objects ------------------------------------------------------------------------------

std::string DTypeObj::repr() const { return fmt::format("dtype('{}')", tensor::name(dtype)); }
std::string DTypeObj::str() const { return std::string(tensor::name(dtype)); }  // print(x.dtype)

bool DTypeObj::has_attr(std::string_view name) const {
  return name == "type" || name == "name" || name == "itemsize" || name == "kind" || name == "char";
}

Value DTypeObj::get_attr(Interpreter& in, std::string_view attr) {
  if (attr == "type") return Value(shared_from_this());  // np.dtype(T).type(v) makes a scalar
  if (attr == "name") return make_str(std::string(tensor::name(dtype)));
  if (attr == "itemsize") return Value::from_int(tensor::itemsize(dtype));
  if (attr == "kind") {
    const char* kind = dtype == DType::Bool ? "b" : tensor::is_float(dtype) ? "f" : tensor::is_signed(dtype) ? "i" : "u";
    return make_str(kind);
  }
  return Object::get_attr(in, attr);
}

// np.float32(x): a typed scalar for a number, an array conversion (astype) for arrays and lists.
Value DTypeObj::call(Interpreter& in, CallArgs& args) {
  if (!args.kwargs.empty() || args.args.size() > 1)
    throw NkiError(ErrorKind::Type, fmt::format("{}() takes at most 1 argument", tensor::name(dtype)));
  if (args.args.empty()) return make_scalar(dtype, 0.0);
  Array a = to_array(in, args.args[0]);
  if (a.ndim() == 0) return make_scalar(dtype, a.has_data() ? a.item() : 0.0);
  return make_array(tensor::astype(a, dtype));
}

bool DTypeObj::equals(const Object& o) const {
  auto* d = dynamic_cast<const DTypeObj*>(&o);
  return d && d->dtype == dtype;
}

Value make_dtype(DType d) { return Value(std::make_shared<DTypeObj>(d)); }

std::optional<DType> to_dtype(const Value& v, std::string_view what) {
  if (v.is_none()) return std::nullopt;
  if (auto* d = v.as<DTypeObj>()) return d->dtype;
  if (auto* s = v.as<StrObj>()) {
    if (auto d = tensor::parse_dtype(s->s)) return d;
    throw NkiError(ErrorKind::Type, fmt::format("{}: data type '{}' not understood", what, s->s));
  }
  if (auto* r = v.is_object() ? dynamic_cast<RefusedObj*>(v.object().get()) : nullptr) r->refuse();
  std::string builtin;  // Python's float / int / bool (type objects)
  if (auto* b = v.as<BuiltinObj>()) builtin = b->name;
  else if (auto* t = v.is_object() ? dynamic_cast<TypeObj*>(v.object().get()) : nullptr) builtin = t->name;
  if (builtin == "float") return DType::Float64;
  if (builtin == "int") return DType::Int64;
  if (builtin == "bool") return DType::Bool;
  throw NkiError(ErrorKind::Type, fmt::format("{}: expected a dtype, got {}", what, v.repr()));
}

// ---- ufunc objects ------------------------------------------------------------------------------

bool UfuncObj::has_attr(std::string_view attr) const {
  return attr == "name" || attr == "nin" || (nin == 2 && (attr == "reduce" || attr == "accumulate"));
}

Value UfuncObj::get_attr(Interpreter& in, std::string_view attr) {
  if (attr == "name") return make_str(name);
  if (attr == "nin") return Value::from_int(nin);
  if (attr == "reduce" && nin == 2) {
    std::optional<tensor::ReduceOp> op;
    if (name == "add") op = tensor::ReduceOp::Sum;
    if (name == "multiply") op = tensor::ReduceOp::Prod;
    if (name == "maximum") op = tensor::ReduceOp::Max;
    if (name == "minimum") op = tensor::ReduceOp::Min;
    if (name == "logical_and") op = tensor::ReduceOp::All;
    if (name == "logical_or") op = tensor::ReduceOp::Any;
    if (!op) throw NkiError(ErrorKind::Unsupported, fmt::format("np.{}.reduce is not supported", name));
    Signature sig{"np." + name + ".reduce", {{"array", {}}, {"axis", Value::from_int(0)}, {"dtype", Value()},
                                             {"out", Value()}, {"keepdims", Value::from_bool(false)}}};
    return Value(make_builtin(std::move(sig), [op = *op](Interpreter& in, BoundArgs& a) {
      if (!a["out"].is_none()) throw NkiError(ErrorKind::Unsupported, "out= is not supported");
      return np::reduce_values(in, op, a["array"], a["axis"], a["dtype"], a["keepdims"].truthy());
    }));
  }
  if (attr == "accumulate" && nin == 2) {
    // np.add.accumulate(a, axis=0): the running op along an axis, numpy's result dtype (the
    // ufunc applied step by step: r[k] = op(r[k-1], a[k])).
    Signature sig{"np." + name + ".accumulate", {{"array", {}}, {"axis", Value::from_int(0)}, {"dtype", Value()},
                                                 {"out", Value()}}};
    Value self(shared_from_this());
    return Value(make_builtin(std::move(sig), [self](Interpreter& in, BoundArgs& a) {
      if (!a["out"].is_none()) throw NkiError(ErrorKind::Unsupported, "out= is not supported");
      Array x = to_array(in, a["array"]);
      if (x.ndim() == 0) throw NkiError(ErrorKind::Type, "cannot accumulate on a scalar");
      int axis = np::normal_axis(to_int(a["axis"], "axis"), x.ndim(), "accumulate");
      if (!a["dtype"].is_none()) x = tensor::astype(x, *to_dtype(a["dtype"], "dtype"));
      auto slice = [&](int64_t k) {
        std::vector<tensor::IndexItem> items(static_cast<size_t>(axis), tensor::Slice{});
        items.push_back(k);
        return tensor::get_index(x, items);
      };
      std::vector<Array> parts;
      Value acc = make_array(slice(0).copy());
      parts.push_back(tensor::expand_dims(to_array(in, acc), axis));
      for (int64_t k = 1; k < x.shape()[size_t(axis)]; ++k) {
        acc = in.call(self, CallArgs{{acc, make_array(slice(k))}, {}});
        parts.push_back(tensor::expand_dims(to_array(in, acc), axis));
      }
      return make_array(tensor::concatenate(parts, axis));
    }));
  }
  return Object::get_attr(in, attr);
}

// ---- arrays and scalars -------------------------------------------------------------------------

thread_local NarrowFormatRecorder* NarrowFormatRecorder::current_ = nullptr;

NarrowFormatRecorder::NarrowFormatRecorder() : outer_(current_) { current_ = this; }
NarrowFormatRecorder::~NarrowFormatRecorder() { current_ = outer_; }

void NarrowFormatRecorder::add(tensor::DType d) {
  for (tensor::DType seen : formats_)
    if (seen == d) return;
  formats_.push_back(d);
}

Value make_array(Array a) { return Value(std::make_shared<NdArrayObj>(std::move(a), false)); }

Value make_scalar(DType d, double v) { return Value(std::make_shared<NdArrayObj>(Array::scalar(d, v), true)); }

Value make_result(Array a, bool scalar_if_0d) {
  bool scalar = scalar_if_0d && a.ndim() == 0;
  return Value(std::make_shared<NdArrayObj>(std::move(a), scalar));
}

namespace {

// Shape and dtype of a nested list/tuple literal; leaves are numbers or arrays.
struct Nested {
  tensor::Shape shape;
  bool any_float = false, any_int = false;
  std::optional<DType> array_dtype;  // promoted dtype of array leaves
  bool has_bool = false, has_data = true;
};

const std::vector<Value>* sequence_items(const Value& v) {
  if (auto* t = v.as<TupleObj>()) return &t->items;
  if (auto* l = v.as<ListObj>()) return &l->items;
  return nullptr;
}

// numpy 1.x's limit on dimensions: a list nested 100,000 deep (or one containing itself) is an
// error after 32 levels, never a recursion that overflows the stack.
constexpr size_t kMaxDims = 32;

void scan(Interpreter& in, const Value& v, size_t depth, Nested& n) {
  if (const auto* items = sequence_items(v)) {
    if (depth >= kMaxDims)
      throw NkiError(ErrorKind::Value, fmt::format("setting an array element with a sequence: the requested array "
                                                   "would exceed the maximum number of dimensions of {}", kMaxDims));
    int64_t len = static_cast<int64_t>(items->size());
    if (depth == n.shape.size()) n.shape.push_back(len);
    else if (n.shape[depth] != len)
      throw NkiError(ErrorKind::Value, "setting an array element with a sequence: the nested lists have different lengths");
    for (const Value& item : *items) scan(in, item, depth + 1, n);
    return;
  }
  tensor::Shape leaf;
  if (auto* a = v.as<NdArrayObj>()) {
    leaf = a->array.shape();
    n.array_dtype = n.array_dtype ? tensor::promote(*n.array_dtype, a->array.dtype()) : a->array.dtype();
    n.has_data = n.has_data && a->array.has_data();
  } else if (v.is_bool()) {
    n.has_bool = true;
  } else if (v.is_int()) {
    n.any_int = true;
  } else if (v.is_float()) {
    n.any_float = true;
  } else {
    throw NkiError(ErrorKind::Type, fmt::format("cannot convert {} to a numpy array", v.type_name()));
  }
  if (depth + leaf.size() > n.shape.size()) {
    if (depth < n.shape.size())
      throw NkiError(ErrorKind::Value, "setting an array element with a sequence: inhomogeneous shape");
    n.shape.insert(n.shape.end(), leaf.begin(), leaf.end());
  } else if (!std::equal(leaf.begin(), leaf.end(), n.shape.begin() + depth)) {
    throw NkiError(ErrorKind::Value, "setting an array element with a sequence: inhomogeneous shape");
  }
}

void fill(Interpreter& in, const Value& v, Array& out, int64_t& pos) {
  if (const auto* items = sequence_items(v)) {
    for (const Value& item : *items) fill(in, item, out, pos);
    return;
  }
  Array leaf = to_array(in, v);
  int64_t n = leaf.size();
  Array flat = tensor::reshape(out, {out.size()});
  Array dst = tensor::get_index(flat, {tensor::Slice{pos, pos + n, {}}});
  tensor::assign(dst, tensor::reshape(leaf, {n}));
  pos += n;
}

DType nested_dtype(const Nested& n) {
  DType scalar = n.any_float ? DType::Float64 : n.any_int ? DType::Int64 : DType::Bool;
  bool any_scalar = n.any_float || n.any_int || n.has_bool;
  if (!n.array_dtype) return scalar;
  return any_scalar ? tensor::promote(*n.array_dtype, scalar) : *n.array_dtype;
}

}  // namespace

Array to_array(Interpreter& in, const Value& v) {
  if (auto* a = v.as<NdArrayObj>()) return a->array;
  if (v.is_bool()) return Array::scalar(DType::Bool, v.as_bool());
  if (v.is_int()) return Array::scalar(DType::Int64, static_cast<double>(v.as_int()));
  if (v.is_float()) return Array::scalar(DType::Float64, v.as_float());
  if (sequence_items(v)) {
    Nested n;
    scan(in, v, 0, n);
    DType d = nested_dtype(n);
    if (!n.has_data) return Array::shape_only(n.shape, d);
    Array out = Array::empty(n.shape, d);
    int64_t pos = 0;
    fill(in, v, out, pos);
    return out;
  }
  if (auto scalar = to_python_scalar(v)) return to_array(in, *scalar);
  throw NkiError(ErrorKind::Type, fmt::format("expected an array or a number, got '{}'", v.type_name()));
}

// ---- interpreter-wide numpy state ---------------------------------------------------------------

namespace {
struct NumpyFlags {
  bool shape_only = false;
};
}  // namespace

void set_numpy_shape_only(Interpreter& in, bool shape_only) {
  auto* f = in.extension<NumpyFlags>();
  if (!f) {
    in.set_extension(std::make_shared<NumpyFlags>());
    f = in.extension<NumpyFlags>();
  }
  f->shape_only = shape_only;
}

bool numpy_shape_only(Interpreter& in) {
  auto* f = in.extension<NumpyFlags>();
  return f && f->shape_only;
}

}  // namespace nki::lib
