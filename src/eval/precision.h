// The precision rule of the check (design.md "Check"): a kernel must not compute in a float format
// below the task's data, however it obtained the format. The interpreter reports every narrow
// float format (bf16, fp16, fp8, tf32) an instruction read or wrote (nki::lib::NarrowFormatUse);
// the task's format is the lowest float format among the kernel's array inputs, the
// reference's outputs and the arrays the reference's forward() makes (nki::lib::NarrowFormatRecorder).
// So fp32 data computed in bf16 is rejected, a task whose inputs are bf16 may compute in bf16, and
// a reference that quantises to fp8 admits a kernel that does. Nothing here reads the kernel's text.
#pragma once

#include <optional>
#include <vector>

#include "nki/lib/kernel_context.h"
#include "tensor/dtype.h"

namespace eval {

// Float formats ordered by precision: fp8 < fp16 = bf16 < tf32 < fp32 < fp64 (fp16 and bf16
// trade mantissa for range; either is allowed where the data is one of them).
int precision_rank(tensor::DType dtype);

// The lowest float format among the task's data formats (float32 when none is a float format,
// or when the lowest is float64: numpy references compute in float64, devices in float32).
tensor::DType task_format(const std::vector<tensor::DType>& data_formats);

// The first use of a format below `task`; nullopt when the kernel keeps the task's precision.
std::optional<nki::lib::NarrowFormatUse> below_task_format(const std::vector<nki::lib::NarrowFormatUse>& uses,
                                                           tensor::DType task);

}  // namespace eval
