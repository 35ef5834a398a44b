#include "nki/lib/nki_tensor.h"

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/indirect_access.h"
#include "nki/lib/kernel_context.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/module_util.h"
#include "nki/lib/tensor_views.h"

namespace nki::lib {

int64_t TensorStorage::blocks() const {
  int64_t b = 1;
  for (int d = 0; d < partition_axis; ++d) b *= shape[d];
  return b;
}

int64_t TensorStorage::free_elements() const {
  int64_t f = 1;
  for (size_t d = size_t(partition_axis) + (on_chip() ? 1 : 0); d < shape.size(); ++d) f *= shape[d];
  return f;
}

std::shared_ptr<TensorStorage> new_storage(const tensor::Shape& shape, tensor::DType dtype, trn::BufferKind buffer,
                                           int partition_axis) {
  KernelContext& ctx = KernelContext::current();
  auto st = std::make_shared<TensorStorage>();
  st->shape = shape;
  st->strides = c_strides(shape);
  st->dtype = dtype;
  st->buffer = buffer;
  st->partition_axis = partition_axis;
  st->id = ctx.new_tensor_id();
  // Trace-only mode never reads `data` (only has_data()), so it keeps the empty default.
  if (!ctx.numerics) return st;
  try {
    st->data = tensor::Array::zeros(shape, dtype);
  } catch (const tensor::BudgetExceeded& e) {
    throw NkiError(LimitKind::Memory, fmt::format("memory limit reached: a tensor of shape {} ({}) does not fit ({})",
                                                 tensor::shape_str(shape), tensor::name(dtype), e.what()));
  }
  return st;
}

Value make_tensor(std::shared_ptr<TensorStorage> storage) {
  AffineView v = AffineView::whole(storage->shape);
  return Value(std::make_shared<NkiTensorObj>(std::move(storage), std::move(v)));
}

Value make_view(const NkiTensorObj& base, AffineView view) {
  return Value(std::make_shared<NkiTensorObj>(base.storage, std::move(view)));
}

bool NkiTensorObj::is_whole() const {
  return view.shape == storage->shape && view.coef == AffineView::whole(storage->shape).coef &&
         std::all_of(view.base.begin(), view.base.end(), [](int64_t b) { return b == 0; });
}

std::string NkiTensorObj::repr() const {
  return fmt::format("<{} tensor {} {} '{}'>", trn::to_string(storage->buffer), tensor::shape_str(shape()),
                     tensor::name(dtype()), storage->name);
}

bool NkiTensorObj::truthy() const {
  throw NkiError(ErrorKind::Rule, "err_ambiguous_tensor_truth_value: the truth value of a tensor is ambiguous; "
                                  "use '&', '|' and '~' on tiles, not 'and', 'or' and 'not'");
}

std::optional<int64_t> NkiTensorObj::length() const {
  if (shape().empty()) return std::nullopt;
  return shape()[0];
}

ViewLayout view_layout(const TensorStorage& st) {
  return ViewLayout{st.strides, st.on_chip() ? st.partition_axis + 1 : 0};
}

namespace {

Value shape_tuple(const tensor::Shape& shape) {
  std::vector<Value> dims;
  dims.reserve(shape.size());
  for (auto d : shape) dims.push_back(Value::from_int(d));
  return make_tuple(std::move(dims));
}

// tensor.reshape(shape): a view with the same bytes (whole tensors; on chip the partition dim
// stays first).
Value reshape_tensor(NkiTensorObj& self, const Value& arg) {
  std::vector<int64_t> shape = to_int_list(arg, "reshape shape");
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1 && infer < 0) infer = int64_t(k);
    else known *= shape[k];
  }
  int64_t total = tensor::num_elements(self.shape());
  if (infer >= 0 && known > 0) shape[size_t(infer)] = total / known;
  if (tensor::num_elements(shape) != total)
    throw NkiError(ErrorKind::Value, fmt::format("cannot reshape a tensor of shape {} into shape {}",
                                                 tensor::shape_str(self.shape()), tensor::shape_str(shape)));
  // A view (newer API): the same storage through a regrouped map (numpy's no-copy reshape rule).
  if (!self.is_whole()) return make_view(self, reshape_view(self.view, shape, view_layout(*self.storage)));
  // On chip (newer API views): the partition dim stays; the free dims of each partition are
  // regrouped, which keeps every element in its partition.
  if (self.on_chip() && (self.storage->partition_axis != 0 || shape.size() < 2 || shape[0] != self.shape()[0]))
    throw NkiError(ErrorKind::Unsupported, fmt::format("reshape of an on-chip tensor keeps its partition dimension {} "
                                                       "first (got shape {})", self.shape()[0], tensor::shape_str(shape)));
  auto st = std::make_shared<TensorStorage>(*self.storage);
  st->shape = shape;
  st->strides = c_strides(shape);
  st->matmul_written.clear();
  st->data = st->data.has_data() ? tensor::reshape(self.storage->data, shape)
                                 : tensor::Array::shape_only(shape, st->dtype);
  return make_tensor(std::move(st));
}

// tensor.ap(pattern=[[step, count], ...], offset=0) (newer API): element (i0, i1, ...) is the
// storage element at flat position offset + sum(step_k * i_k), as the underlying tensor lays it
// out (row-major; on chip the first pair walks the partitions, its step the partition's free
// size). Flat steps and offset are split over the storage dims, outermost first.
AffineView access_pattern_view(const NkiTensorObj& t, const Value& pattern, int64_t offset) {
  if (!t.is_whole())
    throw NkiError(ErrorKind::Unsupported, "tensor.ap: an access pattern applies to a whole tensor, not to a view");
  const TensorStorage& st = *t.storage;
  int r = int(st.shape.size());
  auto split = [&](int64_t flat, auto out) {
    for (int d = 0; d < r; ++d) {
      int64_t q = st.strides[d] ? flat / st.strides[d] : 0;
      out(d, q);
      flat -= q * st.strides[d];
    }
  };
  std::vector<std::pair<int64_t, int64_t>> pairs;
  auto items = [&](const Value& v) {
    std::vector<Value> out;
    if (auto* l = v.as<ListObj>()) out = l->items;
    else if (auto* tu = v.as<TupleObj>()) out = tu->items;
    else throw NkiError(ErrorKind::Type, "tensor.ap: pattern must be a list of [step, count] pairs");
    return out;
  };
  for (const Value& p : items(pattern)) {
    std::vector<Value> pr = items(p);
    if (pr.size() != 2) throw NkiError(ErrorKind::Type, "tensor.ap: each pattern entry is a [step, count] pair");
    pairs.push_back({to_int(pr[0], "tensor.ap step"), to_int(pr[1], "tensor.ap count")});
  }
  if (pairs.empty()) throw NkiError(ErrorKind::Value, "tensor.ap: the pattern is empty");
  if (st.on_chip() && st.partition_axis != 0)
    throw NkiError(ErrorKind::Unsupported, "tensor.ap: tensors with block dimensions are not supported");
  if (st.on_chip() && pairs[0].first % std::max<int64_t>(st.free_elements(), 1) != 0)
    throw NkiError(ErrorKind::Value, fmt::format("tensor.ap: the partition step {} must be a multiple of the partition's "
                                                 "free size {}", pairs[0].first, st.free_elements()));
  AffineView v;
  int m = int(pairs.size());
  // The pattern walks the flat layout (of each partition's free dims on chip): bounds are the
  // flat range's, a step may carry from one dim into the next.
  int first_free = st.on_chip() ? 1 : 0;
  if (first_free < r - 1) v.flat_from = int8_t(first_free);
  v.base.assign(size_t(r), 0);
  v.coef.assign(size_t(r) * size_t(m), 0);
  split(offset, [&](int d, int64_t q) { v.base[size_t(d)] = q; });
  for (int k = 0; k < m; ++k) v.shape.push_back(pairs[size_t(k)].second);
  for (int k = 0; k < m; ++k) split(pairs[size_t(k)].first, [&](int d, int64_t q) { v.c(d, k) = q; });
  return v;
}

// Newer-API view methods (tensor_views.h): each returns a view sharing the storage.
Value view_method(Interpreter&, const std::shared_ptr<NkiTensorObj>& self, std::string_view name, BoundArgs& a) {
  const AffineView& v = self->view;
  const ViewLayout layout = view_layout(*self->storage);
  auto dims_of = [&](const char* what) {
    if (a.rest.empty()) return to_int_list(a[what], what);
    std::vector<int64_t> dims{to_int(a[what], what)};
    for (auto& r : a.rest) dims.push_back(to_int(r, what));
    return dims;
  };
  AffineView out;
  if (name == "permute") out = permute_view(v, dims_of("dims"), layout);
  else if (name == "expand_dim") out = expand_dim_view(v, to_int(a["dim"], "dim"), layout);
  else if (name == "expand_dims") out = expand_dim_view(v, to_int(a["axis"], "axis"), layout);
  else if (name == "squeeze_dim") out = squeeze_dim_view(v, to_int(a["dim"], "dim"), layout);
  else if (name == "broadcast") out = broadcast_dim_view(v, to_int(a["dim"], "dim"), to_int(a["size"], "size"), layout);
  else if (name == "reshape_dim") out = reshape_dim_view(v, to_int(a["dim"], "dim"), dims_of("shape"), layout);
  else if (name == "flatten_dims") out = flatten_dims_view(v, to_int(a["start"], "start"), to_int(a["end"], "end"), layout);
  else if (name == "select") {
    int64_t dim = to_int(a["dim"], "dim"), d = dim < 0 ? dim + v.ndim() : dim;
    out = select_view(v, dim, to_int(a["index"], "index"), layout);
    // As an integer index: on chip the partition dim leaves a size-1 dim behind, and a view keeps
    // at least two dims (nki-language.md 12.1, indexing).
    if (self->on_chip() && (d == 0 || out.ndim() < 2)) out = expand_dim_view(out, std::min<int64_t>(d, out.ndim()), layout);
  }
  return make_view(*self, std::move(out));
}

Value pattern_value(const NkiTensorObj& t) {
  std::vector<Value> pairs;
  for (auto [step, count] : view_pattern(t.view, t.storage->strides))
    pairs.push_back(make_list({Value::from_int(step), Value::from_int(count)}));
  return make_list(std::move(pairs));
}

// Row-major contiguous: the non-unit internal axes step 1 at the last, and each outer one by the
// inner one's extent times its step.
bool is_contiguous(const NkiTensorObj& t) {
  int64_t expect = 1;
  auto pattern = view_pattern(t.view, t.storage->strides);
  for (size_t k = pattern.size(); k-- > 0;) {
    if (pattern[k].second == 1) continue;
    if (pattern[k].first != expect) return false;
    expect *= pattern[k].second;
  }
  return true;
}

}  // namespace

Value NkiTensorObj::get_attr(Interpreter& in, std::string_view name) {
  if (name == "shape") return shape_tuple(shape());
  if (name == "dtype") return make_dtype(dtype());
  if (name == "ndim") return Value::from_int(view.ndim());
  if (name == "itemsize") return Value::from_int(tensor::itemsize(dtype()));
  if (name == "size") return Value::from_int(tensor::num_elements(shape()));
  if (name == "buffer") return Value(std::make_shared<BufferObj>(storage->buffer, trn::to_string(storage->buffer)));
  if (name == "name") return make_str(storage->name);
  auto self = std::static_pointer_cast<NkiTensorObj>(shared_from_this());
  if (name == "reshape") {
    return make_builtin(Signature{"tensor.reshape", {{"shape", std::nullopt}}, true, false},
                        [self](Interpreter&, BoundArgs& a) {
                          Value shape = a.rest.empty() ? a["shape"] : make_tuple([&] {
                            std::vector<Value> dims{a["shape"]};
                            for (auto& r : a.rest) dims.push_back(r);
                            return dims;
                          }());
                          return reshape_tensor(*self, shape);
                        });
  }
  if (name == "broadcast_to") {
    return make_builtin(Signature{"tensor.broadcast_to", {{"shape", std::nullopt}}},
                        [self](Interpreter& in2, BoundArgs& a) { return broadcast_tile(in2, Value(self), a["shape"]); });
  }
  if (name == "ap") {
    return make_builtin(Signature{"tensor.ap", {{"pattern", std::nullopt}, {"offset", Value::from_int(0)}, {"dtype", Value()}},
                                  false, true},
                        [self](Interpreter&, BoundArgs& a) {
                          Value vector_offset;
                          int64_t indirect_dim = 0;
                          for (const auto& [key, value] : a.extra_kwargs) {
                            if (key == "vector_offset") vector_offset = value;
                            else if (key == "indirect_dim") indirect_dim = to_int(value, "indirect_dim");
                            else
                              throw NkiError(ErrorKind::Unsupported,
                                             fmt::format("tensor.ap: '{}' (dynamic access patterns) is not supported", key));
                          }
                          if (!a["dtype"].is_none()) {
                            auto d = to_dtype(a["dtype"], "tensor.ap");
                            if (d && *d != self->dtype())
                              throw NkiError(ErrorKind::Unsupported, "tensor.ap: reinterpreting the dtype is not supported");
                          }
                          AffineView v = access_pattern_view(*self, a["pattern"], to_int(a["offset"], "offset"));
                          if (!vector_offset.is_none())
                            return Value(std::make_shared<NkiTensorObj>(
                                indirect_access_pattern(*self, std::move(v), vector_offset, indirect_dim)));
                          return make_view(*self, std::move(v));
                        });
  }
  if (name == "strides" || name == "offset") {
    const tensor::Strides& st = storage->strides;
    if (name == "offset") return Value::from_int(view.flat_offset(st, Box::full(shape())));
    if (view.split())
      throw NkiError(ErrorKind::Unsupported, "tensor.strides: an axis of this view merges strided digits (see get_pattern())");
    std::vector<Value> out;
    for (int k = 0; k < view.ndim(); ++k) out.push_back(Value::from_int(view.flat_stride(st, k)));
    return make_tuple(std::move(out));
  }
  {
    // Newer-API view methods: (name, parameters), the varargs ones also take the sizes unpacked.
    static const std::vector<std::pair<std::string_view, Signature>> views = [] {
      auto req = [](const char* n) { return Param{n, std::nullopt}; };
      return std::vector<std::pair<std::string_view, Signature>>{
          {"permute", Signature{"tensor.permute", {req("dims")}, true, false}},
          {"expand_dim", Signature{"tensor.expand_dim", {req("dim")}}},
          {"expand_dims", Signature{"tensor.expand_dims", {req("axis")}}},
          {"squeeze_dim", Signature{"tensor.squeeze_dim", {req("dim")}}},
          {"broadcast", Signature{"tensor.broadcast", {req("dim"), req("size")}}},
          {"select", Signature{"tensor.select", {req("dim"), req("index")}}},
          {"reshape_dim", Signature{"tensor.reshape_dim", {req("dim"), req("shape")}, true, false}},
          {"flatten_dims", Signature{"tensor.flatten_dims", {Param{"start", Value::from_int(0)}, Param{"end", Value::from_int(-1)}}}},
      };
    }();
    for (const auto& [method, sig] : views)
      if (name == method)
        return make_builtin(sig, [self, method = method](Interpreter& in2, BoundArgs& a) { return view_method(in2, self, method, a); });
  }
  if (name == "get_pattern")
    return make_builtin(Signature{"tensor.get_pattern", {}}, [self](Interpreter&, BoundArgs&) { return pattern_value(*self); });
  if (name == "is_contiguous")
    return make_builtin(Signature{"tensor.is_contiguous", {}},
                        [self](Interpreter&, BoundArgs&) { return Value::from_bool(is_contiguous(*self)); });
  if (name == "is_indirect")
    return make_builtin(Signature{"tensor.is_indirect", {}},
                        [self](Interpreter&, BoundArgs&) { return Value::from_bool(self->indirect != nullptr); });
  if (name == "assert_shape")
    return make_builtin(Signature{"tensor.assert_shape", {{"shape", std::nullopt}}}, [self](Interpreter&, BoundArgs& a) {
      std::vector<int64_t> want = to_int_list(a["shape"], "assert_shape shape");
      if (tensor::Shape(want.begin(), want.end()) != self->shape())
        throw NkiError(ErrorKind::Rule, fmt::format("err_annotation_shape_mismatch: tensor of shape {} where {} was asserted",
                                                    tensor::shape_str(self->shape()), tensor::shape_str(want)));
      return Value(self);
    });
  if (name == "view")
    throw NkiError(ErrorKind::Unsupported,
                   "tensor.view(dtype) is not supported by accelopt: it reinterprets the bytes in place, and the "
                   "interpreter holds tile values, not bytes; convert values with astype or nl.copy(dtype=)");
  if (name == "rearrange" || name == "vector_select")
    throw NkiError(ErrorKind::Unsupported,
                   fmt::format("tensor.{}: its parameters are not documented (NKI 0.6 lists the method only); write the "
                               "view with permute, reshape_dim, flatten_dims or select", name));
  if (name == "astype") {
    return make_builtin(Signature{"tensor.astype", {{"dtype", std::nullopt}}},
                        [self](Interpreter& in2, BoundArgs& a) { return copy_tile(in2, Value(self), a["dtype"], "tensor.astype"); });
  }
  return Object::get_attr(in, name);
}

bool NkiTensorObj::has_attr(std::string_view name) const {
  static const char* names[] = {"shape", "dtype", "ndim", "itemsize", "size", "buffer", "name",
                                "reshape", "broadcast_to", "astype", "ap", "strides", "offset",
                                "permute", "expand_dim", "expand_dims", "squeeze_dim", "broadcast", "select",
                                "reshape_dim", "flatten_dims", "get_pattern", "is_contiguous", "is_indirect",
                                "assert_shape"};
  for (auto* n : names)
    if (name == n) return true;
  return false;
}

Value NkiTensorObj::get_item(Interpreter& in, const Value& index) {
  if (auto v = indirect_view(*this, index)) return Value(std::make_shared<NkiTensorObj>(std::move(*v)));
  return make_view(*this, index_view(view, index, on_chip()));
}

void NkiTensorObj::set_item(Interpreter& in, const Value& index, const Value& value) {
  refuse_indirect_assignment(*this, index);
  NkiTensorObj dst(storage, index_view(view, index, on_chip()));
  assign_into(in, dst, value);
}

bool NkiTensorObj::aug_set_item(Interpreter& in, BinOp op, const Value& index, const Value& value) {
  refuse_indirect_assignment(*this, index);
  NkiTensorObj dst(storage, index_view(view, index, on_chip()));
  accumulate_into(in, op, dst, value);
  return true;
}

std::optional<Value> NkiTensorObj::inplace_op(Interpreter& in, BinOp op, const Value& value) {
  accumulate_into(in, op, *this, value);
  return Value(shared_from_this());
}

std::optional<Value> NkiTensorObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  if (op == BinOp::FloorDiv) refuse_floor_division_of_tiles("//");
  auto bop = binop_to_alu(op);
  if (!bop) return std::nullopt;
  Value self(shared_from_this());
  return reflected ? elementwise_binary(in, *bop, other, self, symbol(op)) : elementwise_binary(in, *bop, self, other, symbol(op));
}

std::optional<Value> NkiTensorObj::compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) {
  static const tensor::BinaryOp map[] = {tensor::BinaryOp::Eq, tensor::BinaryOp::Ne, tensor::BinaryOp::Lt,
                                         tensor::BinaryOp::Le, tensor::BinaryOp::Gt, tensor::BinaryOp::Ge};
  Value self(shared_from_this());
  auto bop = map[int(op)];
  return reflected ? elementwise_binary(in, bop, other, self, symbol(op)) : elementwise_binary(in, bop, self, other, symbol(op));
}

std::optional<Value> NkiTensorObj::unary_op(Interpreter& in, UnOp op) {
  Value self(shared_from_this());
  if (op == UnOp::Neg) return elementwise_unary(in, tensor::UnaryOp::Neg, self, "-");
  if (op == UnOp::Invert) return elementwise_unary(in, tensor::UnaryOp::Invert, self, "~");
  if (op == UnOp::Pos) return self;
  return std::nullopt;
}

}  // namespace nki::lib
