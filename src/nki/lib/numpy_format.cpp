// repr/str of numpy scalars and arrays (Python's float repr rules; float32 uses its own shortest
// round-trip digits as numpy does).
#include <charconv>
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

namespace {

struct Decimal {
  bool negative = false;
  std::string digits;  // no trailing zeros (at least one digit)
  int decpt = 0;
};

// The shortest round-trip decimal digits of v in dtype t (float64, float16, or float32 for the
// other float formats): v = 0.digits * 10^decpt. numpy prints float16 with float16's own shortest
// digits (np.float16(65504) is 65500.0).
Decimal shortest_decimal(double v, tensor::DType t) {
  char buf[64];
  std::to_chars_result res;
  if (t == tensor::DType::Float64) {
    res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  } else if (t == tensor::DType::Float16 && std::isfinite(v)) {
    for (int digits = 1;; ++digits) {
      res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, digits - 1);
      if (tensor::cast_scalar(t, std::strtod(std::string(buf, res.ptr).c_str(), nullptr)) == v || digits >= 17) break;
    }
  } else {
    res = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific);
  }
  std::string sci(buf, res.ptr);  // [-]d[.ddd]e[+-]XX
  Decimal d;
  d.negative = sci[0] == '-';
  if (d.negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  d.digits = sci.substr(0, e);
  d.digits.erase(std::remove(d.digits.begin(), d.digits.end(), '.'), d.digits.end());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  d.decpt = std::stoi(sci.substr(e + 1)) + 1;
  return d;
}

// numpy prints array elements with precision 8: the shortest digits, but at most 8 after the
// decimal point (positional) or after the first digit (scientific), correctly rounded.
Decimal array_decimal(double v, tensor::DType t, bool scientific) {
  Decimal d = shortest_decimal(v, t);
  int fractional = scientific ? int(d.digits.size()) - 1 : int(d.digits.size()) - d.decpt;
  if (fractional <= 8) return d;
  std::string text = scientific ? fmt::format("{:.8e}", v) : fmt::format("{:.8e}", std::stod(fmt::format("{:.8f}", v)));
  Decimal r;
  r.negative = text[0] == '-';
  if (r.negative) text.erase(0, 1);
  size_t e = text.find('e');
  r.digits = text.substr(0, e);
  r.digits.erase(std::remove(r.digits.begin(), r.digits.end(), '.'), r.digits.end());
  while (r.digits.size() > 1 && r.digits.back() == '0') r.digits.pop_back();
  r.decpt = std::stoi(text.substr(e + 1)) + 1;
  if (r.digits == "0") r.decpt = 1;
  return r;
}

// Python's float repr rules.
std::string shortest_repr(double v, tensor::DType t) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  Decimal d = shortest_decimal(v, t);
  const std::string& digits = d.digits;
  int decpt = d.decpt;
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
    out += fmt::format("e{}{:02d}", decpt - 1 < 0 ? '-' : '+', std::abs(decpt - 1));
  }
  return d.negative ? "-" + out : out;
}

// One element as numpy prints it inside an array ("1." for integral floats), before padding.
std::string element_str(double v, tensor::DType t) {
  if (t == tensor::DType::Bool) return v ? "True" : "False";
  if (!tensor::is_float(t)) return fmt::format("{}", static_cast<int64_t>(v));
  std::string s = format_scalar(v, t);
  size_t dot = s.find('.');
  if (std::isfinite(v) && s.find('e') == std::string::npos && dot != std::string::npos && s.size() - dot - 1 > 8) {
    Decimal d = array_decimal(v, t, false);  // precision 8
    s = (d.negative ? "-" : "") + (d.decpt <= 0 ? "0." + std::string(-d.decpt, '0') + d.digits
                                                 : d.digits.substr(0, std::min<size_t>(d.decpt, d.digits.size())) +
                                                       std::string(d.decpt > int(d.digits.size()) ? d.decpt - d.digits.size() : 0, '0') +
                                                       "." + (size_t(d.decpt) < d.digits.size() ? d.digits.substr(d.decpt) : "0"));
  }
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.pop_back();
  return s;
}

// Visits the elements numpy shows (edges only when summarizing), in order.
template <class Element, class Text>
void render(const tensor::Array& a, std::vector<int64_t>& index, int dim, bool commas, int indent,
            Element&& element, Text&& text) {
  text("[");
  int64_t n = a.shape()[dim];
  constexpr int64_t kEdge = 3;
  bool summarize = a.size() > 1000 && n > 2 * kEdge;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && i == kEdge) {
      text(commas ? "..., " : "... ");
      i = n - kEdge;
    }
    index[dim] = i;
    if (dim + 1 == a.ndim()) {
      element(a.get(index));
    } else {
      render(a, index, dim + 1, commas, indent + 1, element, text);
    }
    if (i + 1 < n) {
      text(commas ? "," : "");
      text(dim + 1 == a.ndim() ? " " : "\n" + std::string(a.ndim() - dim - 2, '\n') + std::string(indent + 1, ' '));
    }
  }
  text("]");
}

// numpy lays the elements of an array out alike (numpy 1.24 arrayprint: FloatingFormat and
// IntegerFormat): floats in positional notation align their decimal points, in scientific
// notation (chosen when the magnitudes span too much) share the number of mantissa digits and
// exponent digits; non-finite values and integers are right-justified to the common width.
class ElementLayout {
 public:
  ElementLayout(const tensor::Array& a, const std::vector<double>& shown) : dtype_(a.dtype()) {
    if (!tensor::is_float(dtype_)) {
      for (double v : shown) width_ = std::max(width_, element_str(v, dtype_).size());
      return;
    }
    double max_abs = 0, min_abs = INFINITY;
    bool has_nonfinite = false, negative_inf = false;
    for (double v : shown) {
      if (!std::isfinite(v)) {
        has_nonfinite = true;
        negative_inf |= std::isinf(v) && v < 0;
      } else if (v != 0) {
        max_abs = std::max(max_abs, std::abs(v));
        min_abs = std::min(min_abs, std::abs(v));
      }
    }
    scientific_ = max_abs >= 1e8 || (max_abs > 0 && (min_abs < 1e-4 || max_abs / min_abs > 1e3));
    for (double v : shown) {
      if (!std::isfinite(v)) continue;
      if (scientific_) {
        Decimal d = array_decimal(v, dtype_, true);
        if (v == 0) d.decpt = 1;
        precision_ = std::max(precision_, d.digits.size() - 1);
        exp_digits_ = std::max<size_t>(exp_digits_, std::max<size_t>(2, std::to_string(std::abs(d.decpt - 1)).size()));
        pad_left_ = std::max<size_t>(pad_left_, d.negative ? 2 : 1);
      } else {
        std::string s = element_str(v, dtype_);
        size_t dot = s.find('.');
        pad_left_ = std::max(pad_left_, dot);
        pad_right_ = std::max(pad_right_, s.size() - dot - 1);
      }
    }
    if (scientific_) pad_right_ = exp_digits_ + 2 + precision_;
    if (has_nonfinite) {
      size_t offset = pad_right_ + 1;
      size_t inf_len = 3 + (negative_inf ? 1 : 0);
      if (3 > offset) pad_left_ = std::max(pad_left_, 3 - offset);
      if (inf_len > offset) pad_left_ = std::max(pad_left_, inf_len - offset);
    }
    width_ = pad_left_ + 1 + pad_right_;
  }

  std::string format(double v) const {
    if (!tensor::is_float(dtype_) || !std::isfinite(v)) return right_justify(element_str(v, dtype_));
    if (scientific_) {
      Decimal d = array_decimal(v, dtype_, true);
      if (v == 0) d.decpt = 1;
      std::string mantissa = (d.negative ? "-" : "") + d.digits.substr(0, 1) + "." + d.digits.substr(1) +
                             std::string(precision_ - (d.digits.size() - 1), '0');
      if (v != 0 && d.digits.size() - 1 < precision_) {
        // numpy pads to the common precision with the value's exact digits, not zeros
        // (float16 0.1 is 9.998e-02 next to an element that needs 3 decimals).
        std::string exact = fmt::format("{:.{}e}", v, precision_);
        size_t e = exact.find('e');
        mantissa = exact.substr(0, e);
        d.decpt = std::stoi(exact.substr(e + 1)) + 1;
      }
      std::string exponent = std::to_string(std::abs(d.decpt - 1));
      exponent = std::string(exp_digits_ - exponent.size(), '0') + exponent;
      return std::string(pad_left_ - (d.negative ? 2 : 1), ' ') + mantissa + "e" + (d.decpt - 1 < 0 ? "-" : "+") +
             exponent;
    }
    std::string s = element_str(v, dtype_);
    size_t dot = s.find('.');
    return std::string(pad_left_ - dot, ' ') + s + std::string(pad_right_ - (s.size() - dot - 1), ' ');
  }

 private:
  std::string right_justify(const std::string& s) const {
    return std::string(width_ > s.size() ? width_ - s.size() : 0, ' ') + s;
  }

  tensor::DType dtype_;
  bool scientific_ = false;
  size_t pad_left_ = 0, pad_right_ = 0, precision_ = 0, exp_digits_ = 0, width_ = 0;
};

std::string body(const tensor::Array& a, bool commas, int indent) {
  if (!a.has_data()) return fmt::format("<shape-only {}>", tensor::shape_str(a.shape()));
  if (a.ndim() == 0) return element_str(a.item(), a.dtype());
  if (a.size() == 0) return "[]";
  std::vector<int64_t> index(a.ndim(), 0);
  std::vector<double> shown;
  render(a, index, 0, commas, indent, [&](double v) { shown.push_back(v); }, [](const std::string&) {});
  ElementLayout layout(a, shown);
  std::string out;
  render(a, index, 0, commas, indent, [&](double v) { out += layout.format(v); },
         [&](const std::string& t) { out += t; });
  return out;
}

}  // namespace

std::string format_scalar(double v, tensor::DType t) { return shortest_repr(v, t); }

std::string array_repr(const tensor::Array& a) {
  std::string s = "array(" + body(a, true, 6);
  bool default_dtype = a.dtype() == tensor::DType::Float64 || a.dtype() == tensor::DType::Int64 ||
                       a.dtype() == tensor::DType::Bool;
  if (!default_dtype || a.size() == 0) s += fmt::format(", dtype={}", tensor::name(a.dtype()));
  return s + ")";
}

std::string array_str(const tensor::Array& a) { return body(a, false, 0); }

}  // namespace nki::lib::np
