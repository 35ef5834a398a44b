// Internal helpers of the numpy module (src/nki/lib/numpy_*.cpp): numpy 1.24 dtype resolution for
// operands, ufunc application, axis and index arguments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nki/lib/array_value.h"
#include "tensor/ops.h"

namespace nki::lib::np {

// numpy.result_type of the operands (NumPy 1.x value-based casting: 0-d operands and Python
// scalars take part by value unless they are of a higher kind than every n-d operand).
tensor::DType result_type(const std::vector<tensor::Array>& operands);

// Binary ufunc (also the Python operators): broadcasting, numpy dtype rules, scalar results for
// 0-d inputs. `name` is numpy's ufunc name (for messages).
Value binary_ufunc(Interpreter& in, tensor::BinaryOp op, const Value& a, const Value& b, std::string_view name,
                   std::optional<tensor::DType> dtype = std::nullopt);
// x @ y
Value matmul_values(Interpreter& in, const Value& a, const Value& b);

// The unary ufuncs of the module by numpy name ("exp", "sqrt", "isnan", ...).
struct UnaryUfunc {
  std::string_view name;
  std::optional<tensor::UnaryOp> op;  // nullopt: special (isnan, isinf, isfinite, positive)
  bool float_only;                    // integer inputs compute in the smallest safe float
};
const std::vector<UnaryUfunc>& unary_ufuncs();
Value unary_ufunc(Interpreter& in, const UnaryUfunc& u, const Value& x, std::optional<tensor::DType> dtype = std::nullopt);

// axis=None / int / tuple of ints -> axes (empty = all); Type error on anything else.
std::vector<int> axes_arg(const Value& axis);
// np.sum(a, axis, dtype, keepdims) and friends, numpy's default result dtypes.
Value reduce_values(Interpreter& in, tensor::ReduceOp op, const Value& a, const Value& axis, const Value& dtype,
                    bool keepdims);

// A numpy subscript as IndexItems; `plain_ints` is set when every item is an int (a[0, 1]), the
// case where numpy returns a scalar.
std::vector<tensor::IndexItem> index_items(Interpreter& in, const Value& index, bool* plain_ints = nullptr);

// The arrays of a sequence argument (np.concatenate, np.stack, np.hstack); at least one.
std::vector<tensor::Array> array_list(Interpreter& in, const Value& seq, std::string_view what);

// Shape arguments: an int or a tuple/list of ints.
tensor::Shape shape_arg(const Value& v, std::string_view what);

// Python float formatting for a value of a float dtype (float32 uses its own shortest repr).
std::string format_scalar(double v, tensor::DType t);
// numpy-like repr/str of an array.
std::string array_repr(const tensor::Array& a);
std::string array_str(const tensor::Array& a);

// Module table parts (numpy_creation.cpp, numpy_math.cpp, numpy_random.cpp).
void add_function(ModuleObj& m, const std::string& name, std::vector<Param> params,
                  std::function<Value(Interpreter&, BoundArgs&)> fn, bool var_args = false);
void add_creation_functions(ModuleObj& m);
void add_math_functions(ModuleObj& m);
void add_extra_functions(ModuleObj& m);  // numpy_extra.cpp
void add_more_functions(ModuleObj& m);   // numpy_more.cpp
void add_sorting_functions(ModuleObj& m);    // numpy_sorting.cpp: sort, argsort, unique, searchsorted, nonzero
void add_reshaping_functions(ModuleObj& m);  // numpy_reshaping.cpp: split, pad, diag, meshgrid, tensordot
ObjectPtr make_random_module();
ObjectPtr make_linalg_module(Interpreter& in);  // numpy_linalg.cpp
// ndarray.sort(axis=-1): sorts the array in place.
Value sort_in_place(Interpreter& in, NdArrayObj& self, const Value& axis);
// A numpy axis argument in range (negative axes wrap); a Value error naming `what` otherwise.
int normal_axis(int64_t axis, int ndim, std::string_view what);

// Python value of element `flat` of a (int for integer dtypes, bool for bool, float otherwise).
Value python_value(const tensor::Array& a);

}  // namespace nki::lib::np
