// nki.language data movement: load/store (DMA between HBM and SBUF), copy, broadcast_to,
// load_transpose2d, expand_dims and device_print.
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/language_math.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

const std::string kNl = "nl";

Value nl_load(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.load";
  NkiTensorObj& src = hbm_arg(a["src"], api, "src");
  tensor::Shape space = src.shape();
  if (space.empty()) space = {1};
  PaddedRef s(src, int(space.size()));
  check_partition_limit(space, api);
  Instruction ins(api, trn::Opcode::DmaLoad, trn::Engine::Dma, std::move(space), to_predicate(a["mask"], api));
  tensor::Array v = ins.input(*s);
  return ins.result(dtype_arg(a["dtype"], src.dtype(), api), trn::BufferKind::Sbuf, v);
}

Value nl_store(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.store";
  NkiTensorObj& dst = hbm_arg(a["dst"], api, "dst");
  Value value = a["value"];
  auto* vt = value.as<NkiTensorObj>();
  if (!vt) throw NkiError(ErrorKind::Type, fmt::format("value of {} must be an SBUF tile, got {}", api, value.type_name()));
  tile_arg(value, api, "value");
  // A PSUM value is first copied to SBUF (DMA reads SBUF only).
  if (vt->storage->buffer == trn::BufferKind::Psum) {
    value = copy_tile(in, value, make_dtype(vt->dtype()), api);
    vt = value.as<NkiTensorObj>();
  }
  int rank = std::max(dst.view.ndim(), vt->view.ndim());
  PaddedRef dref(dst, rank), vref(*vt, rank);
  const NkiTensorObj &d = *dref, &v = *vref;
  check_partition_limit(d.shape(), api);
  for (int k = 0; k < rank; ++k)
    if (v.shape()[k] != d.shape()[k] && v.shape()[k] != 1)
      throw NkiError(ErrorKind::Value, fmt::format("cannot store a value of shape {} into a destination of shape {} ({})",
                                                   tensor::shape_str(vt->shape()), tensor::shape_str(dst.shape()), api));
  Instruction ins(api, trn::Opcode::DmaStore, trn::Engine::Dma, d.shape(), to_predicate(a["mask"], api));
  tensor::Array vals = ins.input(v);
  ins.output_to(d, vals, false);
  return Value();
}

Value nl_load_transpose2d(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.load_transpose2d";
  NkiTensorObj src = padded(hbm_arg(a["src"], api, "src"), 2);
  if (src.view.ndim() != 2) throw NkiError(ErrorKind::Value, "nl.load_transpose2d loads 2-D views only");
  int64_t rows = src.shape()[0], cols = src.shape()[1];
  tensor::Shape space{cols, rows};
  check_partition_limit(space, api);
  Instruction ins(api, trn::Opcode::DmaTranspose, trn::Engine::Dma, space, to_predicate(a["mask"], api));
  const Box& box = ins.box();
  tensor::Array v = no_values();
  if (!box.empty()) v = ins.input_box(src, Box{{box.lo[1], box.lo[0]}, {box.hi[1], box.hi[0]}});
  tensor::Array r = no_values();
  if (ins.computing()) r = tensor::transpose(v, {1, 0});
  return ins.result(dtype_arg(a["dtype"], src.dtype(), api), trn::BufferKind::Sbuf, r);
}

Value nl_expand_dims(Interpreter& in, BoundArgs& a) {
  auto* t = a["data"].as<NkiTensorObj>();
  if (!t) throw NkiError(ErrorKind::Type, "data of nl.expand_dims must be a tensor");
  std::vector<int64_t> axes = to_int_list(a["axis"], "nl.expand_dims axis");
  AffineView v = t->view;
  for (auto axis : axes) {
    int64_t ax = axis < 0 ? axis + v.ndim() + 1 : axis;
    if (ax != v.ndim())
      throw NkiError(ErrorKind::Value, "nl.expand_dims only inserts axes after the last existing axis");
    v = v.with_unit_axis(int(ax));
  }
  return make_view(*t, std::move(v));
}

Value nl_device_print(Interpreter& in, BoundArgs& a) {
  std::string text = a["prefix"].str();
  auto* t = a["x"].as<NkiTensorObj>();
  if (t && t->storage->data.has_data()) {
    tensor::Array v = read_region(*t, Box::full(t->shape()));
    text += " " + make_array(v.copy()).repr();
  } else {
    text += " " + a["x"].repr();
  }
  in.output() += text + "\n";
  return Value();
}

}  // namespace

void add_data_functions(ModuleObj& m) {
  def(m, kNl, "load", {req("src"), kwonly("mask"), kwonly("dtype")}, nl_load);
  def(m, kNl, "store", {req("dst"), req("value"), kwonly("mask")}, nl_store);
  def(m, kNl, "load_transpose2d", {req("src"), kwonly("mask"), kwonly("dtype")}, nl_load_transpose2d);
  def(m, kNl, "copy", {req("src"), kwonly("mask"), kwonly("dtype")}, [](Interpreter& in, BoundArgs& a) {
    return copy_tile(in, a["src"], a["dtype"], "nl.copy", to_predicate(a["mask"], "nl.copy"));
  });
  // The newer API's dtype= (nki-language.md 12): the broadcast tile, converted by a copy when the
  // format changes.
  def(m, kNl, "broadcast_to", {req("src"), req("shape"), kwonly("dtype")}, [](Interpreter& in, BoundArgs& a) {
    Value b = broadcast_tile(in, a["src"], a["shape"]);
    std::optional<tensor::DType> want = to_dtype(a["dtype"], "dtype of nl.broadcast_to");
    auto* t = b.as<NkiTensorObj>();
    if (!want || !t || t->dtype() == *want) return b;
    return copy_tile(in, b, a["dtype"], "nl.broadcast_to");
  });
  def(m, kNl, "expand_dims", {req("data"), req("axis")}, nl_expand_dims);
  def(m, kNl, "device_print", {req("prefix"), req("x"), kwonly("mask")}, nl_device_print);
}

}  // namespace nki::lib
