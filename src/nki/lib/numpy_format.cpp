// repr/str of numpy scalars and arrays (Python's float repr rules; float32 uses its own shortest
// round-trip digits as numpy does).
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

namespace {

// Shortest round-trip digits of v (as float when `single`), formatted like Python's repr.
std::string shortest_repr(double v, bool single) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific)
                    : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci = [-]d[.ddd]e[+-]XX
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exp10 = std::stoi(sci.substr(e + 1));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exp10 + 1;
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(-decpt, '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out = digits + std::string(decpt - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exp10 < 0 ? '-' : '+', std::abs(exp10));
  }
  return negative ? "-" + out : out;
}

// One element as numpy prints it inside an array ("1." for integral floats).
std::string element_str(double v, tensor::DType t) {
  if (t == tensor::DType::Bool) return v ? "True" : "False";
  if (!tensor::is_float(t)) return fmt::format("{}", static_cast<int64_t>(v));
  std::string s = format_scalar(v, t);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.pop_back();
  return s;
}

void render(const tensor::Array& a, std::vector<int64_t>& index, int dim, bool commas, int indent, std::string& out) {
  out += "[";
  int64_t n = a.shape()[dim];
  constexpr int64_t kEdge = 3;
  bool summarize = a.size() > 1000 && n > 2 * kEdge;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && i == kEdge) {
      out += commas ? "..., " : "... ";
      i = n - kEdge;
    }
    index[dim] = i;
    if (dim + 1 == a.ndim()) {
      out += element_str(a.get(index), a.dtype());
    } else {
      render(a, index, dim + 1, commas, indent + 1, out);
    }
    if (i + 1 < n) {
      out += commas ? "," : "";
      out += dim + 1 == a.ndim() ? " " : "\n" + std::string(a.ndim() - dim - 2, '\n') + std::string(indent + 1, ' ');
    }
  }
  out += "]";
}

std::string body(const tensor::Array& a, bool commas, int indent) {
  if (!a.has_data()) return fmt::format("<shape-only {}>", tensor::shape_str(a.shape()));
  if (a.ndim() == 0) return element_str(a.item(), a.dtype());
  if (a.size() == 0) return "[]";
  std::vector<int64_t> index(a.ndim(), 0);
  std::string out;
  render(a, index, 0, commas, indent, out);
  return out;
}

}  // namespace

std::string format_scalar(double v, tensor::DType t) { return shortest_repr(v, t != tensor::DType::Float64); }

std::string array_repr(const tensor::Array& a) {
  std::string s = "array(" + body(a, true, 6);
  bool default_dtype = a.dtype() == tensor::DType::Float64 || a.dtype() == tensor::DType::Int64 ||
                       a.dtype() == tensor::DType::Bool;
  if (!default_dtype || a.size() == 0) s += fmt::format(", dtype={}", tensor::name(a.dtype()));
  return s + ")";
}

std::string array_str(const tensor::Array& a) { return body(a, false, 0); }

}  // namespace nki::lib::np
