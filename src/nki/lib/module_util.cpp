#include "nki/lib/module_util.h"

#include <fmt/format.h>

#include "nki/lib/array_value.h"

namespace nki::lib {

void def(ModuleObj& m, const std::string& prefix, const std::string& name, std::vector<Param> params, LibFn fn) {
  Signature sig{prefix + "." + name, std::move(params), false, false};
  m.attrs[name] = Value(make_builtin(std::move(sig), std::move(fn)));
}

void refuse(ModuleObj& m, const std::string& prefix, const std::string& name, const std::string& reason) {
  if (m.attrs.count(name)) return;
  std::string full = prefix + "." + name;
  m.attrs[name] = Value(std::make_shared<BuiltinObj>(full, [full, reason](Interpreter&, CallArgs&) -> Value {
    throw NkiError(ErrorKind::Unsupported, fmt::format("{} is not supported by accelopt: {}", full, reason));
  }));
}

void RefusedObj::refuse(std::string_view use) const {
  std::string what = use.empty() ? label : label + "." + std::string(use);
  throw NkiError(ErrorKind::Unsupported, fmt::format("{} is not supported by accelopt: {}", what, reason));
}

void refuse_keyword(const Value& given, std::string_view api, std::string_view keyword, std::string_view why) {
  if (given.is_none()) return;
  throw NkiError(ErrorKind::Unsupported, fmt::format("{}({}=...) is not supported by accelopt: {}", api, keyword, why));
}

void require_fp32_compute(const Value& compute_dtype, std::string_view api) {
  if (compute_dtype.is_none()) return;
  std::optional<tensor::DType> d = to_dtype(compute_dtype, "compute_dtype");
  if (d == tensor::DType::Float32) return;
  throw NkiError(ErrorKind::Unsupported,
                 fmt::format("{}(compute_dtype={}) is not supported by accelopt: it computes {} in float32 and does "
                             "not model rounding its intermediates to another format",
                             api, d ? tensor::name(*d) : std::string_view("?"), api));
}

std::optional<Value> BufferObj::compare(Interpreter&, CmpOp op, const Value& other, bool) {
  if (op != CmpOp::Eq && op != CmpOp::Ne) return std::nullopt;
  bool equal;
  if (auto* b = other.is_object() ? dynamic_cast<BufferObj*>(other.object().get()) : nullptr) equal = b->kind == kind;
  else if (auto* s = other.as<StrObj>()) equal = s->s == label || s->s == trn::to_string(kind);
  else return std::nullopt;
  return Value::from_bool(op == CmpOp::Eq ? equal : !equal);
}

Value BufferObj::get_attr(Interpreter& in, std::string_view name) {
  if (has_attr(name)) return Value(shared_from_this());
  return Object::get_attr(in, name);
}

bool BufferObj::has_attr(std::string_view name) const {
  return name == "mod_alloc" || name == "auto_alloc" || name == "alloc";
}

Value NamespaceObj::get_attr(Interpreter& in, std::string_view name) {
  for (auto& [n, v] : attrs)
    if (n == name) return v;
  return Object::get_attr(in, name);
}

bool NamespaceObj::has_attr(std::string_view name) const {
  for (auto& [n, v] : attrs)
    if (n == name) return true;
  return false;
}

Value PassthroughObj::call(Interpreter& in, CallArgs& args) {
  if (args.args.size() == 1 && args.kwargs.empty() && !args.args[0].is_number() && !args.args[0].is_none())
    return args.args[0];  // used as a decorator: the function itself
  return Value(shared_from_this());  // a decorator factory or directive with options
}

Value PassthroughObj::get_attr(Interpreter& in, std::string_view name) {
  return Value(std::make_shared<PassthroughObj>(label + "." + std::string(name)));
}

void add_dtype_constants(ModuleObj& m) {
  using tensor::DType;
  const std::pair<const char*, DType> dtypes[] = {
      {"float32", DType::Float32},     {"tfloat32", DType::TFloat32},       {"bfloat16", DType::BFloat16},
      {"float16", DType::Float16},     {"float8_e4m3", DType::Float8E4M3},  {"float8_e5m2", DType::Float8E5M2},
      {"int8", DType::Int8},           {"int16", DType::Int16},             {"int32", DType::Int32},
      {"uint8", DType::UInt8},         {"uint16", DType::UInt16},           {"uint32", DType::UInt32},
      {"bool_", DType::Bool},          {"float8_e4m3fn", DType::Float8E4M3FN},
  };
  for (auto& [name, d] : dtypes) m.attrs[name] = make_dtype(d);
  // Newer-API formats without an interpreter format (nki-language.md 6): the MX types pack four
  // values per element with a shared block scale, int64 exists for scalar registers only.
  const std::string mx = "an MX format (four packed values per element with per-block scales) used by "
                         "nc_matmul_mx / quantize_mx on NeuronCore-v4 (trn3); accelopt models trn1 and trn2";
  for (const char* name : {"float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4", "float8_e8m0fnu"})
    m.attrs[name] = Value(std::make_shared<RefusedObj>(std::string("nl.") + name, mx));
  m.attrs["int64"] = Value(std::make_shared<RefusedObj>(
      "nl.int64", "the 64-bit integer type of the newer API's scalar registers; tiles have no int64 (nki-language.md 3.8)"));
}

}  // namespace nki::lib
