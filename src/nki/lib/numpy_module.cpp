// The numpy module table: dtypes, constants, np.random and the function groups.
#include <cmath>

#include "nki/interpreter.h"
#include "nki/lib/modules.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib {

namespace {

void add_dtypes(ModuleObj& m) {
  using tensor::DType;
  const std::pair<const char*, DType> dtypes[] = {
      {"bool_", DType::Bool},     {"int8", DType::Int8},       {"int16", DType::Int16},     {"int32", DType::Int32},
      {"int64", DType::Int64},    {"uint8", DType::UInt8},     {"uint16", DType::UInt16},   {"uint32", DType::UInt32},
      {"uint64", DType::UInt64},  {"float16", DType::Float16}, {"half", DType::Float16},    {"float32", DType::Float32},
      {"single", DType::Float32}, {"float64", DType::Float64}, {"double", DType::Float64},  {"float_", DType::Float64},
      {"int_", DType::Int64},     {"intc", DType::Int32},
  };
  for (auto& [name, d] : dtypes) m.attrs[name] = make_dtype(d);
  np::add_function(m, "dtype", {Param{"dtype", std::nullopt, false}}, [](Interpreter& in, BoundArgs& a) {
    if (auto* arr = a["dtype"].as<NdArrayObj>()) return make_dtype(arr->array.dtype());
    return make_dtype(*to_dtype(a["dtype"], "np.dtype"));
  });
  np::add_function(m, "result_type", {}, [](Interpreter& in, BoundArgs& a) {
    std::vector<tensor::Array> operands;
    for (const Value& v : a.rest) {
      if (auto d = v.as<DTypeObj>()) operands.push_back(tensor::Array::shape_only({1}, d->dtype));
      else operands.push_back(to_array(in, v));
    }
    if (operands.empty()) throw NkiError(ErrorKind::Value, "at least one array or dtype is required");
    return make_dtype(np::result_type(operands));
  }, true);
}

void add_constants(ModuleObj& m) {
  m.attrs["pi"] = Value::from_float(M_PI);
  m.attrs["e"] = Value::from_float(M_E);
  m.attrs["inf"] = Value::from_float(INFINITY);
  m.attrs["Inf"] = Value::from_float(INFINITY);
  m.attrs["nan"] = Value::from_float(NAN);
  m.attrs["NaN"] = Value::from_float(NAN);
  m.attrs["newaxis"] = Value();
}

}  // namespace

ObjectPtr make_numpy_module(Interpreter& in) {
  install_numpy_scalar_converter();
  auto m = std::make_shared<ModuleObj>("numpy");
  add_dtypes(*m);
  add_constants(*m);
  np::add_creation_functions(*m);
  np::add_math_functions(*m);
  np::add_extra_functions(*m);
  np::add_more_functions(*m);
  np::add_sorting_functions(*m);
  np::add_reshaping_functions(*m);
  m->attrs["random"] = Value(np::make_random_module());
  m->attrs["linalg"] = Value(np::make_linalg_module(in));
  return m;
}

}  // namespace nki::lib
