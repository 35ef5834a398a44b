// Dense n-d arrays with numpy view semantics (shape, strides in elements, offset, shared buffer).
// One class serves numpy arrays in references and on-chip/HBM data in kernels.
//
// Shape-only arrays (has_data() == false) carry shape and dtype but no buffer: they are what the
// trace-only mode runs on. Every operation accepts them and returns shape-only results.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace tensor {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;  // in elements, may be 0 (broadcast) or negative

int64_t num_elements(const Shape& shape);
std::string shape_str(const Shape& shape);  // "(128, 512)" like numpy, "(3,)" for 1-d

// A user-facing error from an array operation (shape mismatch, bad axis, ...). The interpreter
// turns it into a diagnostic at the kernel line that called the operation.
struct ArrayError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when an allocation would exceed the active AllocationBudget.
struct BudgetExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes allocated by arrays on this thread are charged to the innermost active budget; exceeding
// it throws BudgetExceeded before the allocation happens. Freed buffers are credited back.
class AllocationBudget {
 public:
  explicit AllocationBudget(uint64_t limit_bytes);
  ~AllocationBudget();
  AllocationBudget(const AllocationBudget&) = delete;
  AllocationBudget& operator=(const AllocationBudget&) = delete;
  uint64_t used() const;
  uint64_t peak() const;
  uint64_t limit() const;
  static AllocationBudget* current();
  void charge(uint64_t bytes);  // throws BudgetExceeded
  void credit(uint64_t bytes);  // never below zero

  // The counters, shared with the buffers charged to them so that a buffer that outlives its
  // budget (or is freed on another thread) credits safely.
  struct Account;

 private:
  std::shared_ptr<Account> account_;
  AllocationBudget* previous_;
  friend struct Buffer;
};

struct Buffer;  // owned storage (defined in array.cpp)

class Array {
 public:
  Array();  // a 0-d float64 zero
  // Number of bytes of one stored element (4 for float32-held formats, 8 otherwise).
  static int storage_bytes(DType dtype);

  static Array zeros(const Shape& shape, DType dtype);
  // Uninitialised contents (for results that are written in full before anyone reads them).
  static Array empty(const Shape& shape, DType dtype);
  static Array full(const Shape& shape, DType dtype, double value);
  static Array shape_only(const Shape& shape, DType dtype);
  static Array scalar(DType dtype, double value);  // 0-d array
  static Array from_values(const Shape& shape, DType dtype, const std::vector<double>& values);

  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return num_elements(shape_); }
  int64_t nbytes() const { return size() * itemsize(dtype_); }  // in the dtype's format
  bool has_data() const { return buffer_ != nullptr; }
  bool is_contiguous() const;  // C-contiguous
  bool shares_buffer_with(const Array& other) const { return buffer_ && buffer_ == other.buffer_; }

  // Typed pointers to element (0, ..., 0); the storage type must match storage_of(dtype()).
  float* f32() const;
  double* f64() const;
  int64_t* i64() const;

  // Slow, generic element access (tests, scalars, small loops).
  double get(const std::vector<int64_t>& index) const;
  void set(const std::vector<int64_t>& index, double value);  // rounds/casts to dtype
  double item() const;  // value of a size-1 array

  // A view of the same buffer with a new shape/strides/offset (no checks beyond bounds).
  Array view(const Shape& shape, const Strides& strides, int64_t offset) const;
  // Same view with another dtype of the same storage (no conversion; used by astype fast paths).
  Array with_dtype(DType dtype) const;
  // Untyped pointer to element (0, ..., 0); nullptr for shape-only arrays.
  void* raw() const;
  // A new array with the same data in C order (always a fresh buffer).
  Array copy() const;
  // C-contiguous version: *this when already contiguous, else a copy.
  Array contiguous() const;

 private:
  struct Uninit {};
  explicit Array(Uninit) {}
  static Array bare(const Shape& shape, DType dtype);  // shape and dtype, no buffer

  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float64;
  std::shared_ptr<Buffer> buffer_;
};

// A checksum of the elements in C order and the dtype (not the shape): equal contents give equal
// checksums, a change almost surely another. 0 for shape-only arrays. Reads 8 bytes at a time
// (the evaluation checksums full-size inputs, hundreds of MB, before and after every kernel run).
uint64_t checksum(const Array& a);

}  // namespace tensor
