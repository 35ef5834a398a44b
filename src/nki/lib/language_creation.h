// The creation part of nki.language (ndarray, zeros, ones, full, *_like, shared_constant,
// par_dim) and the buffer argument rules.
#pragma once

#include <optional>
#include <string>

#include "nki/value.h"
#include "tensor/dtype.h"
#include "trn/trace.h"

namespace nki::lib {

trn::BufferKind buffer_kind(const Value& buffer, std::string_view api);
// buffer=nl.shared_hbm (one tensor shared by the programs of an SPMD launch).
bool is_shared_hbm(const Value& buffer);
// Declares a tensor; `fill` = initial value (nl.zeros/ones/full), nullopt = uninitialised: zeros
// on chip, poison_value() in HBM (device memory is not zeroed; a partly written output fails).
// The fill is one Memset per block; `lazy` (nl.zeros(lazy_initialization=True)) emits none, the
// values are still `fill`.
Value create_tensor(const Value& shape, const Value& dtype, const Value& buffer, const Value& name,
                    std::string_view api, std::optional<double> fill, bool lazy = false);
// NaN for float formats, the pattern 0xA5A5A5A5 (wrapped to the format) for integers.
double poison_value(tensor::DType dtype);
Value shared_constant(Interpreter& in, const Value& constant, const Value& dtype);
void add_creation_functions(ModuleObj& m, const std::string& prefix);

}  // namespace nki::lib
