// numpy subscripts (a[1:, None, ..., idx]) as tensor::IndexItems.
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

namespace {

[[noreturn]] void invalid_index() {
  throw NkiError(ErrorKind::Index,
                 "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
                 "are valid indices");
}

std::optional<int64_t> slice_bound(const Value& v) {
  if (v.is_none()) return std::nullopt;
  if (v.is_float()) throw NkiError(ErrorKind::Type, "slice indices must be integers or None or have an __index__ method");
  return to_int(v, "slice index");
}

tensor::IndexItem one_item(Interpreter& in, const Value& v, bool& plain_int) {
  plain_int = false;
  if (v.is_int() || v.is_bool()) {
    plain_int = true;
    return v.as_int();
  }
  if (v.is_none()) return tensor::NewAxis{};
  if (v.is(ObjType::Ellipsis)) return tensor::EllipsisIndex{};
  if (auto* s = v.as<SliceObj>()) return tensor::Slice{slice_bound(s->start), slice_bound(s->stop), slice_bound(s->step)};
  if (auto* a = v.as<NdArrayObj>()) {
    const tensor::Array& arr = a->array;
    if (!tensor::is_integer(arr.dtype()) && arr.dtype() != tensor::DType::Bool) invalid_index();
    if (arr.ndim() == 0 && tensor::is_integer(arr.dtype()) && arr.has_data()) {
      plain_int = true;
      return static_cast<int64_t>(arr.item());
    }
    return arr;
  }
  if (v.is(ObjType::List)) {
    tensor::Array arr = to_array(in, v);
    if (arr.size() == 0) arr = tensor::astype(arr, tensor::DType::Int64);
    if (!tensor::is_integer(arr.dtype()) && arr.dtype() != tensor::DType::Bool) invalid_index();
    return arr;
  }
  if (auto scalar = to_python_scalar(v); scalar && scalar->is_int()) {
    plain_int = true;
    return scalar->as_int();
  }
  invalid_index();
}

}  // namespace

std::vector<tensor::IndexItem> index_items(Interpreter& in, const Value& index, bool* plain_ints) {
  std::vector<tensor::IndexItem> items;
  bool all_ints = true;
  auto add = [&](const Value& v) {
    bool plain = false;
    items.push_back(one_item(in, v, plain));
    all_ints = all_ints && plain;
  };
  if (auto* t = index.as<TupleObj>()) {
    for (const Value& v : t->items) add(v);
  } else {
    add(index);
  }
  if (plain_ints) *plain_ints = all_ints;
  return items;
}

}  // namespace nki::lib::np
