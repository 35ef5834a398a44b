#include "eval/precision.h"

namespace eval {

int precision_rank(tensor::DType dtype) {
  switch (dtype) {
    case tensor::DType::Float8E4M3:
    case tensor::DType::Float8E4M3FN:
    case tensor::DType::Float8E5M2: return 1;
    case tensor::DType::Float16:
    case tensor::DType::BFloat16: return 2;
    case tensor::DType::TFloat32: return 3;
    case tensor::DType::Float32: return 4;
    case tensor::DType::Float64: return 5;
    default: return 0;  // not a float format
  }
}

tensor::DType task_format(const std::vector<tensor::DType>& data_formats) {
  tensor::DType lowest = tensor::DType::Float64;
  for (tensor::DType dtype : data_formats)
    if (tensor::is_float(dtype) && precision_rank(dtype) < precision_rank(lowest)) lowest = dtype;
  return lowest == tensor::DType::Float64 ? tensor::DType::Float32 : lowest;
}

std::optional<nki::lib::NarrowFormatUse> below_task_format(const std::vector<nki::lib::NarrowFormatUse>& uses,
                                                           tensor::DType task) {
  for (const auto& use : uses)
    if (precision_rank(use.dtype) < precision_rank(task)) return use;
  return std::nullopt;
}

}  // namespace eval
