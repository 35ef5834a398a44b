// Tensor creation: nl.ndarray / zeros / ones / full / *_like / shared_constant, and the buffer
// rules checked at declaration (partition <= 128, on-chip rank >= 2, PSUM tile <= 2 KiB per
// partition). Total SBUF/PSUM capacity is deliberately not checked: block dims are logical.
#include "nki/lib/language_creation.h"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/instruction.h"
#include "nki/lib/module_util.h"
#include "trn/tile_limits.h"
#include "nki/range_loops.h"

namespace nki::lib {

namespace {

struct CreationShape {
  tensor::Shape shape;
  int partition_axis = 0;
};

CreationShape creation_shape(const Value& v, std::string_view api) {
  // Read the items in place (a copy of the tuple's vector was one allocation per tensor).
  const Value* items = &v;
  size_t n_items = 1;
  if (auto* t = v.as<TupleObj>()) items = t->items.data(), n_items = t->items.size();
  else if (auto* l = v.as<ListObj>()) items = l->items.data(), n_items = l->items.size();
  CreationShape cs;
  cs.shape.reserve(n_items);
  int par = -1;
  for (size_t i = 0; i < n_items; ++i) {
    const Value& item = items[i];
    if (auto* p = dynamic_cast<ParDimObj*>(item.is_object() ? item.object().get() : nullptr)) {
      if (par >= 0) throw NkiError(ErrorKind::Value, fmt::format("{}: a shape can mark only one nl.par_dim", api));
      par = int(cs.shape.size());
      cs.shape.push_back(p->size);
      continue;
    }
    int64_t d = to_int(item, "shape dimension");
    if (d < 0) throw NkiError(ErrorKind::Value, fmt::format("{}: negative dimension {} in shape", api, d));
    cs.shape.push_back(d);
  }
  cs.partition_axis = par < 0 ? 0 : par;
  return cs;
}

void check_on_chip_shape(const CreationShape& cs, tensor::DType dtype, trn::BufferKind kind, std::string_view api) {
  int free_dims = int(cs.shape.size()) - cs.partition_axis - 1;
  if (free_dims < 1)
    throw NkiError(ErrorKind::Rule, fmt::format("Insufficient rank: an {} tensor needs a partition dimension and at "
                                                "least one free dimension, got shape {} ({})",
                                                trn::to_string(kind), tensor::shape_str(cs.shape), api));
  int64_t p = cs.shape[size_t(cs.partition_axis)];
  if (p > trn::limits::pmax)
    throw NkiError(ErrorKind::Rule, fmt::format("partition dimension {} exceeds the 128 partitions of {} ({})", p,
                                                kind == trn::BufferKind::Psum ? "PSUM" : "SBUF", api));
  int64_t free_bytes = tensor::itemsize(dtype);
  for (size_t d = size_t(cs.partition_axis) + 1; d < cs.shape.size(); ++d) free_bytes *= cs.shape[d];
  if (kind == trn::BufferKind::Psum && free_bytes > trn::limits::psum_bank_bytes)
    throw NkiError(ErrorKind::Rule, fmt::format("PSUM tile of shape {} needs {} bytes per partition, more than the "
                                                "2 KiB of a PSUM bank ({})",
                                                tensor::shape_str(cs.shape), free_bytes, api));
}

// One Memset record per block: a block is one tile of the buffer, and an engine instruction's
// operand never spans tiles (a single operand for every block would exceed a PSUM partition).
void emit_fill(const NkiTensorObj& t, double value) {
  KernelContext& ctx = KernelContext::current();
  if (ctx.numerics) tensor::fill(t.storage->data, value);
  const TensorStorage& st = *t.storage;
  ctx.note_format(st.dtype, "memset");
  auto engine = st.buffer == trn::BufferKind::Psum ? trn::Engine::Vector : trn::Engine::GpSimd;
  int64_t blocks = st.blocks();
  for (int64_t block = 0; block < blocks; ++block) {
    trn::Record* r = ctx.begin_instruction(trn::Opcode::Memset, engine);
    if (!r) {
      ctx.end_instruction(nullptr, nullptr);
      return;
    }
    r->line = current_line(ctx);
    r->inst.nonzero_fill = value != 0.0;  // ISA memset: only a zero fill of 16-bit data runs at N/2
    trn::Operand op;
    op.buffer = st.buffer;
    op.tensor_id = st.id;
    op.block = uint32_t(block);
    op.partitions = uint16_t(st.partitions());
    op.free_elements = uint32_t(st.free_elements());
    op.dtype_bytes = uint8_t(tensor::itemsize(st.dtype));
    op.fp32 = st.dtype == tensor::DType::Float32;
    op.elem = trace_elem(st.dtype);
    op.contiguous_bytes = uint32_t(st.free_elements() * op.dtype_bytes);
    op.descriptors = uint32_t(st.partitions());
    r->inst.outputs.push_back(op);
    ctx.end_instruction(nullptr, nullptr);
  }
}

// nl.zeros(..., lazy_initialization=True): the keyword nki-language.md 7.2 reports in generated
// kernels (undocumented in the reference's signature), meaning "no memset; the first write
// initialises the tensor".
bool lazy_initialization(const BoundArgs& a) { return a["lazy_initialization"].truthy(); }

}  // namespace

bool is_shared_hbm(const Value& v) {
  if (auto* b = dynamic_cast<BufferObj*>(v.is_object() ? v.object().get() : nullptr)) return b->label == "shared_hbm";
  if (auto* s = v.as<StrObj>()) return s->s == "shared_hbm";
  return false;
}

double poison_value(tensor::DType dtype) {
  if (tensor::is_float(dtype)) return std::numeric_limits<double>::quiet_NaN();
  // A recognisable bit pattern (0xA5A5A5A5 as int32), wrapped to the integer format.
  return tensor::cast_scalar(dtype, double(int32_t(0xA5A5A5A5u)));
}

trn::BufferKind buffer_kind(const Value& v, std::string_view api) {
  if (v.is_none()) return trn::BufferKind::Sbuf;
  if (auto* b = dynamic_cast<BufferObj*>(v.is_object() ? v.object().get() : nullptr)) return b->kind;
  if (auto* s = v.as<StrObj>()) {
    if (s->s == "sbuf") return trn::BufferKind::Sbuf;
    if (s->s == "psum") return trn::BufferKind::Psum;
    if (s->s == "hbm" || s->s == "shared_hbm" || s->s == "private_hbm") return trn::BufferKind::Hbm;
  }
  throw NkiError(ErrorKind::Type, fmt::format("buffer of {} must be nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm or "
                                              "nl.private_hbm, got {}", api, v.repr()));
}

Value create_tensor(const Value& shape_v, const Value& dtype_v, const Value& buffer_v, const Value& name_v,
                    std::string_view api, std::optional<double> fill, bool lazy) {
  CreationShape cs = creation_shape(shape_v, api);
  tensor::DType dtype = dtype_arg(dtype_v, tensor::DType::Float32, api);
  trn::BufferKind kind = buffer_kind(buffer_v, api);
  if (kind == trn::BufferKind::Hbm) {
    if (fill)
      throw NkiError(ErrorKind::Rule, fmt::format("err_hbm_tensor_with_init_value_not_supported: an HBM tensor cannot "
                                                  "be created with an initial value ({}); store into it instead", api));
    cs.partition_axis = 0;
  } else {
    check_on_chip_shape(cs, dtype, kind, api);
  }
  // In an SPMD launch every program gets the first program's shared_hbm tensors (one output
  // shared by all programs, nki-language.md 3.10), matched by creation order.
  KernelContext& ctx = KernelContext::current();
  bool shared = kind == trn::BufferKind::Hbm && is_shared_hbm(buffer_v);
  // The legacy compiler takes shared_hbm tensors (one for every program of a launch) only at the
  // kernel's top level (nki-language.md 3.1, 3.10); the newer API unrolls its loops and has no
  // such rule.
  if (shared && ctx.device_loop_depth > 0 && ctx.interpreter && imported(*ctx.interpreter, "neuronxcc"))
    throw NkiError(ErrorKind::Rule, fmt::format("err_shared_hbm_must_in_kernel_level: {} creates a shared_hbm tensor "
                                                "inside a loop; create it at the kernel's top level, before the loops",
                                                api));
  if (shared && !ctx.grid.empty() && !ctx.launch_first_program) {
    if (ctx.launch_shared_next >= ctx.launch_shared.size())
      throw NkiError(ErrorKind::Rule, fmt::format("{}: this program creates more shared_hbm tensors than the first "
                                                  "program of the launch", api));
    auto st = ctx.launch_shared[ctx.launch_shared_next++];
    if (st->shape != cs.shape || st->dtype != dtype)
      throw NkiError(ErrorKind::Rule, fmt::format("{}: the programs of a launch create different shared_hbm tensors "
                                                  "({} {} here, {} {} in the first program)", api,
                                                  tensor::shape_str(cs.shape), tensor::name(dtype),
                                                  tensor::shape_str(st->shape), tensor::name(st->dtype)));
    return make_tensor(st);
  }
  auto storage = new_storage(cs.shape, dtype, kind, kind == trn::BufferKind::Hbm ? 0 : cs.partition_axis);
  if (shared && !ctx.grid.empty()) ctx.launch_shared.push_back(storage);
  // Device memory is not zeroed: an HBM tensor starts as poison, so that an output the kernel
  // leaves partly unwritten fails the check instead of passing on zeros.
  if (kind == trn::BufferKind::Hbm && ctx.numerics) tensor::fill(storage->data, poison_value(dtype));
  if (auto* s = name_v.as<StrObj>()) storage->name = s->s;
  storage->zero_initialized = fill && *fill == 0.0;
  KernelContext::current().emit_alloc(*storage);
  Value t = make_tensor(storage);
  if (fill && lazy && KernelContext::current().numerics) tensor::fill(storage->data, *fill);
  if (fill && !lazy) emit_fill(*t.as<NkiTensorObj>(), *fill);
  return t;
}

Value shared_constant(Interpreter& in, const Value& constant, const Value& dtype_v) {
  tensor::Array a = to_array(in, constant);
  tensor::DType dtype = dtype_arg(dtype_v, a.dtype(), "nl.shared_constant");
  tensor::Shape shape = a.shape();
  if (shape.empty()) shape = {1};
  auto storage = new_storage(shape, dtype, trn::BufferKind::Hbm, 0);
  storage->name = "shared_constant";
  if (KernelContext::current().numerics) tensor::assign(storage->data, tensor::reshape(a, shape));
  KernelContext::current().emit_alloc(*storage);
  return make_tensor(storage);
}

void add_creation_functions(ModuleObj& m, const std::string& prefix) {
  def(m, prefix, "ndarray", {req("shape"), opt("dtype"), opt("buffer"), opt("name")},
      [](Interpreter&, BoundArgs& a) { return create_tensor(a["shape"], a["dtype"], a["buffer"], a["name"], "nl.ndarray", {}); });
  def(m, prefix, "zeros", {req("shape"), opt("dtype"), opt("buffer"), opt("name"), kwonly("lazy_initialization")},
      [](Interpreter&, BoundArgs& a) {
        return create_tensor(a["shape"], a["dtype"], a["buffer"], a["name"], "nl.zeros", 0.0, lazy_initialization(a));
      });
  def(m, prefix, "ones", {req("shape"), opt("dtype"), opt("buffer"), opt("name")},
      [](Interpreter&, BoundArgs& a) { return create_tensor(a["shape"], a["dtype"], a["buffer"], a["name"], "nl.ones", 1.0); });
  def(m, prefix, "full", {req("shape"), req("fill_value"), opt("dtype"), opt("buffer"), opt("name")},
      [](Interpreter&, BoundArgs& a) {
        auto v = scalar_arg(a["fill_value"]);
        if (!v) throw NkiError(ErrorKind::Type, "fill_value of nl.full must be a number");
        return create_tensor(a["shape"], a["dtype"], a["buffer"], a["name"], "nl.full", *v);
      });
  auto like = [&](const char* name, std::optional<double> fill) {
    std::vector<Param> params{req("a"), opt("dtype"), opt("buffer"), opt("name")};
    if (fill == 0.0) params.push_back(kwonly("lazy_initialization"));  // as nl.zeros
    def(m, prefix, name, std::move(params),
        [name, fill](Interpreter&, BoundArgs& a) {
          bool lazy = fill == 0.0 && lazy_initialization(a);
          std::string api = std::string("nl.") + name;
          auto* t = a["a"].as<NkiTensorObj>();
          if (!t) throw NkiError(ErrorKind::Type, fmt::format("a of {} must be a tensor", api));
          Value dtype = a["dtype"].is_none() ? make_dtype(t->dtype()) : a["dtype"];
          Value buffer = a["buffer"];
          if (buffer.is_none() && !t->on_chip()) throw NkiError(ErrorKind::Value, api + " of an HBM tensor needs buffer=");
          std::vector<Value> dims;
          for (auto d : t->shape()) dims.push_back(Value::from_int(d));
          return create_tensor(make_tuple(std::move(dims)), dtype, buffer, a["name"], api, fill, lazy);
        });
  };
  like("zeros_like", 0.0);
  like("ones_like", 1.0);
  like("empty_like", std::nullopt);
  def(m, prefix, "shared_constant", {req("constant"), opt("dtype")},
      [](Interpreter& in, BoundArgs& a) { return shared_constant(in, a["constant"], a["dtype"]); });
  def(m, prefix, "shared_identity_matrix", {req("n"), opt("dtype"), kwonly("dst")},
      [](Interpreter& in, BoundArgs& a) {
        refuse_keyword(a["dst"], "nl.shared_identity_matrix", "dst",
                       "the identity is returned as a new tensor (the legacy form); writing it into dst is not "
                       "modelled");
        int64_t n = to_int(a["n"], "nl.shared_identity_matrix n");
        Value dtype = a["dtype"].is_none() ? make_dtype(tensor::DType::UInt8) : a["dtype"];
        return shared_constant(in, make_array(tensor::identity(n, tensor::DType::Float32)), dtype);
      });
  // Host-side helper of the unit tests: a numpy array or scalar converted to a dtype.
  def(m, prefix, "static_cast", {req("input_data"), req("dtype")}, [](Interpreter& in, BoundArgs& a) {
    tensor::Array x = to_array(in, a["input_data"]);
    auto d = to_dtype(a["dtype"], "nl.static_cast");
    return make_array(d ? tensor::astype(x, *d) : x);
  });
  def(m, prefix, "par_dim", {req("n")},
      [](Interpreter&, BoundArgs& a) { return Value(std::make_shared<ParDimObj>(to_int(a["n"], "nl.par_dim"))); });
}

}  // namespace nki::lib
