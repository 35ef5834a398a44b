#include "bench/compare.h"

#include <cmath>

#include <fmt/core.h>

#include "tensor/ops.h"

namespace bench {
namespace {

// Reads element i of a C-contiguous array as float64, whatever its storage (kernel outputs are
// float32, references may be float64); avoids copying full-size outputs into a new buffer.
class Elements {
 public:
  explicit Elements(const tensor::Array& a) : array_(a.contiguous()), storage_(tensor::storage_of(array_.dtype())) {}
  size_t size() const { return size_t(array_.size()); }
  double operator[](size_t i) const {
    switch (storage_) {
      case tensor::Storage::F32: return array_.f32()[i];
      case tensor::Storage::F64: return array_.f64()[i];
      case tensor::Storage::I64: return double(array_.i64()[i]);
    }
    return 0;
  }

 private:
  tensor::Array array_;
  tensor::Storage storage_;
};

}  // namespace

OutputDiff diff_outputs(const tensor::Array& out, const tensor::Array& ref) {
  Elements o(out), r(ref);
  OutputDiff d;
  double diff_sq = 0, ref_sq = 0, abs_sum = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    double diff = o[i] - r[i];
    double ad = std::fabs(diff);
    if (std::isnan(diff)) ad = INFINITY;  // NaN anywhere must fail the check
    diff_sq += diff * diff;
    ref_sq += r[i] * r[i];
    abs_sum += ad;
    if (ad > d.max_abs_diff) d.max_abs_diff = ad;
    if (r[i] != 0 && ad / std::fabs(r[i]) > d.max_rel_diff) d.max_rel_diff = ad / std::fabs(r[i]);
  }
  d.mean_abs_diff = o.size() == 0 ? 0 : abs_sum / double(o.size());
  double norm = std::sqrt(diff_sq);
  d.rel_l2 = ref_sq > 0 ? norm / std::sqrt(ref_sq) : norm;
  if (std::isnan(d.rel_l2)) d.rel_l2 = INFINITY;
  return d;
}

Comparison compare_outputs(const std::vector<tensor::Array>& outs, const std::vector<tensor::Array>& refs,
                           double tolerance) {
  Comparison c;
  if (outs.size() != refs.size()) {
    c.problem = fmt::format("kernel returned {} output(s), reference has {}", outs.size(), refs.size());
    return c;
  }
  c.correct = true;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].shape() != refs[i].shape()) {
      c.correct = false;
      c.problem = fmt::format("output {} has shape {}, reference shape is {}", i, tensor::shape_str(outs[i].shape()),
                              tensor::shape_str(refs[i].shape()));
      return c;
    }
    OutputDiff d = diff_outputs(outs[i], refs[i]);
    if (i == 0 || d.rel_l2 > c.worst.rel_l2) c.worst = d;
    if (!(d.rel_l2 < tolerance)) c.correct = false;
  }
  return c;
}

bool uses_lower_precision(const std::string& kernel_text) {
  std::string code;
  code.reserve(kernel_text.size());
  bool in_comment = false;
  for (char ch : kernel_text) {
    if (ch == '\n') in_comment = false;
    else if (ch == '#') in_comment = true;
    if (!in_comment) code += ch;
  }
  return code.find("float16") != std::string::npos;
}

}  // namespace bench
