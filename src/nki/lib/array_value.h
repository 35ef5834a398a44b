// Interpreter values shared by the numpy module and the nki modules: numpy arrays (and numpy
// scalars, which are 0-d arrays flagged as scalars) and dtype objects.
#pragma once

#include <vector>

#include "nki/value.h"
#include "tensor/array.h"
#include "tensor/dtype.h"

namespace nki::lib {

// A dtype object: np.float32, nl.bfloat16, np.dtype('float32'), x.dtype all give a DTypeObj and
// compare equal when they name the same format. Calling it makes a typed scalar (np.float32(0.5)).
struct DTypeObj : Object {
  static constexpr ObjType kType = ObjType::DType;
  tensor::DType dtype;
  explicit DTypeObj(tensor::DType d) : dtype(d) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "dtype"; }
  std::string repr() const override;
  std::string str() const override;
  Value get_attr(Interpreter& in, std::string_view name) override;  // .type, .name, .itemsize
  bool has_attr(std::string_view name) const override;
  Value call(Interpreter& in, CallArgs& args) override;  // np.float32(x)
  bool equals(const Object& o) const override;
  size_t hash() const override { return size_t(dtype); }
};
Value make_dtype(tensor::DType d);

// Records the narrow float formats (bf16, fp16, fp8, tf32) of the numpy arrays host code makes
// while it is open (one per thread, nested ones restore the outer one): the check judges a
// kernel's precision against the formats its reference's forward() computes in, so a reference
// that quantises to fp8 admits a kernel that does (eval/precision.h).
class NarrowFormatRecorder {
 public:
  NarrowFormatRecorder();
  ~NarrowFormatRecorder();
  NarrowFormatRecorder(const NarrowFormatRecorder&) = delete;
  NarrowFormatRecorder& operator=(const NarrowFormatRecorder&) = delete;
  const std::vector<tensor::DType>& formats() const { return formats_; }  // in first-use order
  static void note(tensor::DType d) {
    if (current_ && tensor::is_narrow_float(d)) current_->add(d);
  }

 private:
  void add(tensor::DType d);
  std::vector<tensor::DType> formats_;
  NarrowFormatRecorder* outer_;
  static thread_local NarrowFormatRecorder* current_;
};

// A numpy ndarray (or numpy scalar when is_scalar: what np.float32(1.0) and a[0, 0] return).
struct NdArrayObj : Object {
  static constexpr ObjType kType = ObjType::NdArray;
  tensor::Array array;
  bool is_scalar = false;
  explicit NdArrayObj(tensor::Array a, bool scalar = false) : array(std::move(a)), is_scalar(scalar) {
    NarrowFormatRecorder::note(array.dtype());
  }
  ObjType type() const override { return kType; }
  std::string type_name() const override;  // "ndarray" or "float32" etc. for scalars
  std::string repr() const override;
  std::string str() const override;  // numpy's str: "[1. 2.]" for arrays, the value for scalars
  bool truthy() const override;  // numpy: ambiguous for size > 1 -> Value error
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  Value get_item(Interpreter& in, const Value& index) override;
  void set_item(Interpreter& in, const Value& index, const Value& value) override;
  std::optional<Value> inplace_op(Interpreter& in, BinOp op, const Value& value) override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
  std::optional<Value> unary_op(Interpreter& in, UnOp op) override;
  std::unique_ptr<Iterator> iter(Interpreter& in) override;
  std::optional<int64_t> length() const override;
};
Value make_array(tensor::Array a);
Value make_scalar(tensor::DType d, double v);

// A numpy ufunc (np.add, np.exp, ...): callable, with .reduce for binary ones, and recognisable
// by the nki library when passed as `op=` (repr "<ufunc 'add'>", `name` "add").
struct UfuncObj : Object {
  std::string name;  // numpy's name: "add", "exp", "maximum"
  int nin;           // 1 or 2 inputs
  NativeFn fn;       // the call
  UfuncObj(std::string n, int inputs, NativeFn f) : name(std::move(n)), nin(inputs), fn(std::move(f)) {}
  std::string type_name() const override { return "ufunc"; }
  std::string repr() const override { return "<ufunc '" + name + "'>"; }
  Value call(Interpreter& in, CallArgs& args) override { return fn(in, args); }
  Value get_attr(Interpreter& in, std::string_view attr) override;  // .reduce, .__name__-free .name
  bool has_attr(std::string_view attr) const override;
};

// Shape-only mode for the numpy module of this interpreter: random inputs and array creation give
// shape-only arrays (the trace-only run of a reference costs nothing per element).
void set_numpy_shape_only(Interpreter& in, bool shape_only);
bool numpy_shape_only(Interpreter& in);

// Lets range(), int() and list indices accept numpy integer scalars and size-1 arrays
// (register_scalar_converter); make_numpy_module calls it.
void install_numpy_scalar_converter();

// Makes a numpy value from an operation result: a numpy scalar when the array is 0-d and
// `scalar_if_0d`, else an ndarray.
Value make_result(tensor::Array a, bool scalar_if_0d = true);

// Converts a Value to an array the way numpy.asarray would for the kinds references use:
// ndarray, numpy scalar, Python bool/int/float (weak: float64/int64/bool), nested lists/tuples.
tensor::Array to_array(Interpreter& in, const Value& v);
// dtype= arguments: a DTypeObj, a string ("float32"), or None (nullopt).
std::optional<tensor::DType> to_dtype(const Value& v, std::string_view what);

}  // namespace nki::lib
