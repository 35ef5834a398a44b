// The Python protocols of numpy arrays and scalars: operators, indexing, iteration, truth.
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib {

using tensor::Array;
using tensor::BinaryOp;
using tensor::DType;

namespace {

std::optional<BinaryOp> to_binary(BinOp op) {
  switch (op) {
    case BinOp::Add: return BinaryOp::Add;
    case BinOp::Sub: return BinaryOp::Sub;
    case BinOp::Mul: return BinaryOp::Mul;
    case BinOp::Div: return BinaryOp::Div;
    case BinOp::FloorDiv: return BinaryOp::FloorDiv;
    case BinOp::Mod: return BinaryOp::Mod;
    case BinOp::Pow: return BinaryOp::Pow;
    case BinOp::LShift: return BinaryOp::LShift;
    case BinOp::RShift: return BinaryOp::RShift;
    case BinOp::BitAnd: return BinaryOp::BitAnd;
    case BinOp::BitOr: return BinaryOp::BitOr;
    case BinOp::BitXor: return BinaryOp::BitXor;
    default: return std::nullopt;
  }
}

const char* ufunc_name(BinOp op) {
  switch (op) {
    case BinOp::Add: return "add";
    case BinOp::Sub: return "subtract";
    case BinOp::Mul: return "multiply";
    case BinOp::Div: return "divide";
    case BinOp::FloorDiv: return "floor_divide";
    case BinOp::Mod: return "remainder";
    case BinOp::Pow: return "power";
    case BinOp::LShift: return "left_shift";
    case BinOp::RShift: return "right_shift";
    case BinOp::BitAnd: return "bitwise_and";
    case BinOp::BitOr: return "bitwise_or";
    case BinOp::BitXor: return "bitwise_xor";
    default: return "matmul";
  }
}

// Operands numpy accepts next to an array: numbers, arrays, numpy scalars, lists/tuples.
bool is_operand(const Value& v) {
  return v.is_number() || v.is(ObjType::NdArray) || v.is(ObjType::List) || v.is(ObjType::Tuple);
}

int kind_rank(DType t) { return t == DType::Bool ? 0 : tensor::is_float(t) ? 2 : 1; }

std::optional<Value> scalar_converter(const Value& v) {
  auto* a = v.as<NdArrayObj>();
  if (!a || a->array.size() != 1 || !a->array.has_data()) return std::nullopt;
  return np::python_value(tensor::reshape(a->array, {}));
}

}  // namespace

void install_numpy_scalar_converter() { register_scalar_converter(&scalar_converter); }

std::string NdArrayObj::type_name() const {
  if (!is_scalar) return "ndarray";
  return std::string(tensor::name(array.dtype()));
}

std::string NdArrayObj::repr() const {
  if (!is_scalar) return np::array_repr(array);
  if (!array.has_data()) return fmt::format("<{} scalar>", tensor::name(array.dtype()));
  double v = array.item();
  if (array.dtype() == DType::Bool) return v ? "True" : "False";
  if (tensor::is_float(array.dtype())) return np::format_scalar(v, array.dtype());
  return fmt::format("{}", static_cast<int64_t>(v));
}

std::string NdArrayObj::str() const {
  if (is_scalar || !array.has_data()) return repr();
  return np::array_str(array);
}

bool NdArrayObj::truthy() const {
  if (array.size() != 1) {
    if (array.size() == 0) return false;
    throw NkiError(ErrorKind::Value,
                   "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  }
  if (!array.has_data()) throw NkiError(ErrorKind::Value, "the truth value of a shape-only array is unknown");
  return array.item() != 0;
}

std::optional<int64_t> NdArrayObj::length() const {
  if (array.ndim() == 0) return std::nullopt;
  return array.shape()[0];
}

namespace {
class AxisIterator : public Iterator {
 public:
  explicit AxisIterator(Array a) : a_(std::move(a)) {}
  bool next(Value& out) override {
    if (pos_ >= a_.shape()[0]) return false;
    out = make_result(tensor::get_index(a_, {pos_++}));
    return true;
  }

 private:
  Array a_;
  int64_t pos_ = 0;
};
}  // namespace

std::unique_ptr<Iterator> NdArrayObj::iter(Interpreter& in) {
  if (array.ndim() == 0) throw NkiError(ErrorKind::Type, "iteration over a 0-d array");
  return std::make_unique<AxisIterator>(array);
}

Value NdArrayObj::get_item(Interpreter& in, const Value& index) {
  bool plain_ints = false;
  auto items = np::index_items(in, index, &plain_ints);
  Array r = tensor::get_index(array, items);
  return make_result(std::move(r), plain_ints);
}

void NdArrayObj::set_item(Interpreter& in, const Value& index, const Value& value) {
  if (is_scalar) throw NkiError(ErrorKind::Type, fmt::format("'{}' object does not support item assignment", type_name()));
  auto items = np::index_items(in, index);
  tensor::set_index(array, items, to_array(in, value));
}

std::optional<Value> NdArrayObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  if (!is_operand(other)) return std::nullopt;
  Value self(shared_from_this());
  const Value& lhs = reflected ? other : self;
  const Value& rhs = reflected ? self : other;
  if (op == BinOp::MatMul) return np::matmul_values(in, lhs, rhs);
  auto bop = to_binary(op);
  if (!bop) return std::nullopt;
  return np::binary_ufunc(in, *bop, lhs, rhs, ufunc_name(op));
}

// `a op= b` writes into a (numpy's in-place ufunc with same_kind casting); scalars rebind.
std::optional<Value> NdArrayObj::inplace_op(Interpreter& in, BinOp op, const Value& value) {
  if (is_scalar || !is_operand(value)) return std::nullopt;
  Value self(shared_from_this());
  Value r = op == BinOp::MatMul ? np::matmul_values(in, self, value)
                                : np::binary_ufunc(in, *to_binary(op), self, value, ufunc_name(op));
  const Array& result = r.as<NdArrayObj>()->array;
  if (kind_rank(result.dtype()) > kind_rank(array.dtype()))
    throw NkiError(ErrorKind::Type,
                   fmt::format("Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                               ufunc_name(op), tensor::name(result.dtype()), tensor::name(array.dtype())));
  if (result.shape() != array.shape() && tensor::broadcast_shapes(result.shape(), array.shape()) != array.shape())
    throw NkiError(ErrorKind::Value, fmt::format("non-broadcastable output operand with shape {} doesn't match the "
                                                 "broadcast shape {}", tensor::shape_str(array.shape()),
                                                 tensor::shape_str(result.shape())));
  tensor::assign(array, result);
  return self;
}

std::optional<Value> NdArrayObj::compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) {
  if (!is_operand(other)) {
    if (op == CmpOp::Eq) return Value::from_bool(false);
    if (op == CmpOp::Ne) return Value::from_bool(true);
    return std::nullopt;
  }
  Value self(shared_from_this());
  const Value& lhs = reflected ? other : self;
  const Value& rhs = reflected ? self : other;
  switch (op) {
    case CmpOp::Eq: return np::binary_ufunc(in, BinaryOp::Eq, lhs, rhs, "equal");
    case CmpOp::Ne: return np::binary_ufunc(in, BinaryOp::Ne, lhs, rhs, "not_equal");
    case CmpOp::Lt: return np::binary_ufunc(in, BinaryOp::Lt, lhs, rhs, "less");
    case CmpOp::Le: return np::binary_ufunc(in, BinaryOp::Le, lhs, rhs, "less_equal");
    case CmpOp::Gt: return np::binary_ufunc(in, BinaryOp::Gt, lhs, rhs, "greater");
    case CmpOp::Ge: return np::binary_ufunc(in, BinaryOp::Ge, lhs, rhs, "greater_equal");
  }
  return std::nullopt;
}

std::optional<Value> NdArrayObj::unary_op(Interpreter& in, UnOp op) {
  Value self(shared_from_this());
  auto find = [](std::string_view name) -> const np::UnaryUfunc& {
    for (const auto& u : np::unary_ufuncs())
      if (u.name == name) return u;
    throw NkiError(ErrorKind::Internal, "missing ufunc");
  };
  switch (op) {
    case UnOp::Neg: return np::unary_ufunc(in, find("negative"), self);
    case UnOp::Pos: return np::unary_ufunc(in, find("positive"), self);
    case UnOp::Invert: return np::unary_ufunc(in, find("invert"), self);
    case UnOp::Not: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace nki::lib
