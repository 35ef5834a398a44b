// numpy functions of the host-side code around kernels (tests and references of the NKI
// samples): nanmean, einsum, fromfunction, tril/triu_indices, np.testing.assert_allclose.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::BinaryOp;
using tensor::DType;
using tensor::ReduceOp;

namespace {


// np.nanmean(a, axis=None, keepdims=False): the mean of the non-NaN elements.
Value nanmean(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["a"]);
  DType out = tensor::is_float(x.dtype()) ? x.dtype() : DType::Float64;
  std::vector<int> axes = axes_arg(a["axis"]);
  bool keep = a["keepdims"].truthy();
  Array valid = tensor::binary(BinaryOp::Eq, x, x, DType::Float64, DType::Float64);  // 1 where not NaN
  Array zeroed = tensor::where(valid, x, Array::scalar(DType::Float64, 0.0), DType::Float64);
  Array sum = tensor::reduce(ReduceOp::Sum, zeroed, axes, keep, DType::Float64);
  Array count = tensor::reduce(ReduceOp::Sum, valid, axes, keep, DType::Float64);
  return make_result(tensor::binary(BinaryOp::Div, sum, count, DType::Float64, out));
}

// np.einsum("ij,jk->ik", a, b): every operand transposed to one index order and broadcast, the
// product summed over the indices the output does not keep (explicit or implicit output; no '...').
Value einsum(Interpreter& in, BoundArgs& a) {
  std::string spec = a["subscripts"].str();
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  if (spec.find("...") != std::string::npos) throw NkiError(ErrorKind::Unsupported, "np.einsum: '...' is not supported");
  std::string inputs = spec, output;
  bool explicit_out = false;
  if (auto arrow = spec.find("->"); arrow != std::string::npos) {
    inputs = spec.substr(0, arrow);
    output = spec.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = inputs.find(',', start);
    terms.push_back(inputs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != a.rest.size())
    throw NkiError(ErrorKind::Value, fmt::format("np.einsum: {} operands for {} subscripts", a.rest.size(), terms.size()));
  std::map<char, int> count;
  std::string letters;  // all indices, in order of appearance
  for (auto& t : terms)
    for (char c : t) {
      if (!std::isalpha(static_cast<unsigned char>(c))) throw NkiError(ErrorKind::Value, fmt::format("np.einsum: invalid subscript '{}'", c));
      if (count[c]++ == 0) letters += c;
    }
  if (!explicit_out) {  // implicit: the indices that appear once, alphabetically
    for (char c : letters)
      if (count[c] == 1) output += c;
    std::sort(output.begin(), output.end());
  }
  std::map<char, int64_t> extent;
  std::vector<Array> ops;
  DType dtype = DType::Bool;
  for (size_t i = 0; i < terms.size(); ++i) {
    Array x = to_array(in, a.rest[i]);
    if (int(terms[i].size()) != x.ndim())
      throw NkiError(ErrorKind::Value, fmt::format("np.einsum: operand {} has {} dimensions, subscripts '{}'", i, x.ndim(), terms[i]));
    dtype = i == 0 ? x.dtype() : tensor::promote(dtype, x.dtype());
    // Repeated index within one operand (a diagonal) is not supported.
    for (size_t k = 0; k < terms[i].size(); ++k) {
      if (terms[i].find(terms[i][k]) != k) throw NkiError(ErrorKind::Unsupported, "np.einsum: repeated indices in one operand");
      auto [it, fresh] = extent.emplace(terms[i][k], x.shape()[k]);
      if (!fresh && it->second != x.shape()[k] && x.shape()[k] != 1 && it->second != 1)
        throw NkiError(ErrorKind::Value, fmt::format("np.einsum: index '{}' has sizes {} and {}", terms[i][k], it->second, x.shape()[k]));
    }
    // Transpose to the global letter order, then add unit axes for the letters it lacks.
    std::vector<int> perm;
    tensor::Shape full;
    for (char c : letters) {
      auto pos = terms[i].find(c);
      if (pos != std::string::npos) perm.push_back(int(pos));
    }
    Array t = tensor::transpose(x, perm);
    for (char c : letters) full.push_back(terms[i].find(c) != std::string::npos ? x.shape()[terms[i].find(c)] : 1);
    ops.push_back(tensor::reshape(t.contiguous(), full));
  }
  for (char c : output)
    if (!count.count(c)) throw NkiError(ErrorKind::Value, fmt::format("np.einsum: output index '{}' is not an input index", c));
  in.charge_steps(uint64_t(ops.size()));
  Array prod = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) prod = tensor::binary(BinaryOp::Mul, prod, ops[i], dtype, dtype);
  std::vector<int> summed;
  for (size_t k = 0; k < letters.size(); ++k)
    if (output.find(letters[k]) == std::string::npos) summed.push_back(int(k));
  Array r = summed.empty() ? prod : tensor::reduce(ReduceOp::Sum, prod, summed, false, dtype);
  std::string kept;
  for (char c : letters)
    if (output.find(c) != std::string::npos) kept += c;
  std::vector<int> perm;
  for (char c : output) perm.push_back(int(kept.find(c)));
  return make_result(perm.empty() ? r : tensor::transpose(r, perm).copy());
}

// np.tril_indices(n, k=0, m=None) / triu_indices: the row and column indices of the triangle.
Value triangle_indices(int64_t n, int64_t k, int64_t m, bool lower) {
  std::vector<double> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      if (lower ? j - i <= k : j - i >= k) rows.push_back(double(i)), cols.push_back(double(j));
  int64_t count = int64_t(rows.size());
  return make_tuple({make_array(Array::from_values({count}, DType::Int64, rows)),
                     make_array(Array::from_values({count}, DType::Int64, cols))});
}

}  // namespace

void add_extra_functions(ModuleObj& m) {
  add_function(m, "nanmean", {req("a"), opt("axis"), opt("dtype"), opt("out"), opt("keepdims", Value::from_bool(false))}, nanmean);
  add_function(m, "einsum", {req("subscripts")}, einsum, true);
  for (bool lower : {true, false}) {
    std::string name = lower ? "tril_indices" : "triu_indices";
    add_function(m, name, {req("n"), opt("k", Value::from_int(0)), opt("m")}, [lower](Interpreter&, BoundArgs& a) {
      int64_t n = to_int(a["n"], "n");
      return triangle_indices(n, to_int(a["k"], "k"), a["m"].is_none() ? n : to_int(a["m"], "m"), lower);
    });
    add_function(m, name + "_from", {req("arr"), opt("k", Value::from_int(0))}, [lower](Interpreter& in, BoundArgs& a) {
      Array x = to_array(in, a["arr"]);
      if (x.ndim() != 2) throw NkiError(ErrorKind::Value, "input array must be 2-d");
      return triangle_indices(x.shape()[0], to_int(a["k"], "k"), x.shape()[1], lower);
    });
  }
  // np.fromfunction(f, shape, dtype=float): f called once with one index grid per dimension.
  add_function(m, "fromfunction", {req("function"), req("shape"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    tensor::Shape shape = shape_arg(a["shape"], "shape");
    DType d = to_dtype(a["dtype"], "dtype").value_or(DType::Float64);
    CallArgs call;
    int64_t n = tensor::num_elements(shape);
    for (size_t k = 0; k < shape.size(); ++k) {
      std::vector<double> grid(static_cast<size_t>(n));
      int64_t inner = 1;
      for (size_t l = k + 1; l < shape.size(); ++l) inner *= shape[l];
      for (int64_t e = 0; e < n; ++e) grid[size_t(e)] = double((e / inner) % shape[k]);
      call.args.push_back(make_array(Array::from_values(shape, d, grid)));
    }
    return in.call(a["function"], std::move(call));
  });
  // np.testing.assert_allclose(actual, desired, rtol=1e-7, atol=0): an AssertionError naming
  // the mismatch count, as numpy's.
  auto testing = std::make_shared<ModuleObj>("numpy.testing");
  add_function(*testing, "assert_allclose",
               {req("actual"), req("desired"), opt("rtol", Value::from_float(1e-7)), opt("atol", Value::from_float(0.0)),
                opt("equal_nan", Value::from_bool(true)), opt("err_msg", make_str("")), opt("verbose", Value::from_bool(true))},
               [](Interpreter& in, BoundArgs& a) {
                 Array x = to_array(in, a["actual"]), y = to_array(in, a["desired"]);
                 double rtol = to_float(a["rtol"], "rtol"), atol = to_float(a["atol"], "atol");
                 Array xd = tensor::astype(tensor::broadcast_to(x, tensor::broadcast_shapes(x.shape(), y.shape())), DType::Float64).contiguous();
                 Array yd = tensor::astype(tensor::broadcast_to(y, xd.shape()), DType::Float64).contiguous();
                 int64_t bad = 0;
                 for (int64_t i = 0; i < xd.size(); ++i) {
                   double u = xd.f64()[i], v = yd.f64()[i];
                   bool nan_ok = std::isnan(u) && std::isnan(v) && a["equal_nan"].truthy();
                   if (!nan_ok && !(std::fabs(u - v) <= atol + rtol * std::fabs(v))) ++bad;
                 }
                 if (bad)
                   throw NkiError(ErrorKind::Assertion, "AssertionError",
                                  fmt::format("Not equal to tolerance rtol={}, atol={} {}: mismatched elements {} / {}",
                                              float_repr(rtol), float_repr(atol), a["err_msg"].str(), bad, xd.size()));
                 return Value();
               });
  m.attrs["testing"] = Value(testing);
}

}  // namespace nki::lib::np
