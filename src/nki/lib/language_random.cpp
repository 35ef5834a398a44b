// nki.language operations outside the element-wise table: nl.abs_max / nl.abs_min (the operand of
// larger / smaller magnitude, sign kept), the hardware random numbers (nl.random_seed, nl.rand,
// nl.dropout, nisa.dropout) and nl.atomic_rmw (an accumulating DMA into HBM).
//
// Random numbers come from one generator per kernel run (splitmix64, seeded by
// nl.random_seed, a fixed seed otherwise): runs are reproducible, but the values are not the
// device's, so a reference can check only what does not depend on them (dropout with rate 0 or
// 1, which elements survive vs the kernel's own mask, statistics).
#include <cmath>

#include <fmt/format.h>

#include "nki/lib/alu_ops.h"
#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/isa_functions.h"
#include "nki/lib/language_math.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

using tensor::Array;
using tensor::DType;

std::vector<double> values_of(const Array& a) {
  Array c = tensor::astype(a, DType::Float64).contiguous();
  return std::vector<double>(c.f64(), c.f64() + c.size());
}

// Uniform [0, 1) with 24 random bits (exact in float32).
double next_uniform(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return double(z >> 40) * 0x1.0p-24;
}

// nl.abs_max(x, y) / nl.abs_min(x, y): tiles (or a scalar y) of one shape after partition
// broadcasting; ties keep x.
Value abs_extreme(Interpreter& in, BoundArgs& a, bool larger) {
  std::string_view api = larger ? "nl.abs_max" : "nl.abs_min";
  Value x_v = a["x"], y_v = a["y"];
  spread_over_partitions(in, {&x_v, &y_v});  // a [1, F] row reaches the partitions (3.7)
  NkiTensorObj& x = tile_arg(x_v, api, "x");
  auto ys = scalar_arg(y_v);
  NkiTensorObj* y = ys ? nullptr : &tile_arg(y_v, api, "y");
  tensor::Shape space = y ? partition_broadcast(x.shape(), y->shape(), api) : x.shape();
  Instruction ins(api, trn::Opcode::TensorTensor, trn::Engine::Vector, space, to_predicate(a["mask"], api));
  Array xv = ins.input(x), yv = y ? ins.input(*y) : no_values();
  Array r = no_values();
  if (ins.computing()) {
    tensor::Shape bs = ins.box().shape();
    std::vector<double> p = values_of(tensor::broadcast_to(xv, bs));
    std::vector<double> q = y ? values_of(tensor::broadcast_to(yv, bs)) : std::vector<double>(p.size(), *ys);
    for (size_t i = 0; i < p.size(); ++i) {
      bool take_y = larger ? std::fabs(q[i]) > std::fabs(p[i]) : std::fabs(q[i]) < std::fabs(p[i]);
      if (take_y) p[i] = q[i];
    }
    r = Array::from_values(bs, DType::Float64, p);
  }
  DType out = dtype_arg(a["dtype"], y ? tensor::nki_promote(x.dtype(), y->dtype()) : x.dtype(), api);
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

// Seeds the kernel's generator from a Python int or a one-element tile.
void seed_generator(const Value& given, std::string_view api) {
  double seed;
  if (auto* t = given.as<NkiTensorObj>()) {
    if (tensor::num_elements(t->shape()) != 1)
      throw NkiError(ErrorKind::Value, fmt::format("the seed of {} must be a scalar or a one-element tile", api));
    // A trace without numerics (accelopt profile) holds no values: the seed is then any one, the
    // draws' values being unused (reading the storage there crashed).
    Array v = KernelContext::current().numerics ? read_region(*t, Box::full(t->shape())) : no_values();
    seed = v.has_data() ? tensor::astype(v, DType::Float64).contiguous().f64()[0] : 0.0;
  } else {
    seed = to_float(given, "seed");
  }
  KernelContext::current().rng_state = uint64_t(int64_t(seed)) * 0x2545F4914F6CDD1DULL + 1;
}

// nl.random_seed(seed).
Value random_seed(Interpreter& in, BoundArgs& a) {
  seed_generator(a["seed"], "nl.random_seed");
  return Value();
}

// nisa.set_rng_seed(seed) (newer API; also spelled src_seeds): the generator nisa.rng and
// nisa.rand2 draw from, the same one nl.rand uses.
Value set_rng_seed(Interpreter& in, BoundArgs& a) {
  const Value& given = a["seed"].is_none() ? a["src_seeds"] : a["seed"];
  if (given.is_none()) throw NkiError(ErrorKind::Type, "nisa.set_rng_seed needs a seed (seed= or src_seeds=)");
  seed_generator(given, "nisa.set_rng_seed");
  return Value();
}

// The newer random instructions write dst (destination-first): nisa.rand2(dst, min, max) draws
// uniform [min, max) values, nisa.rng(dst) uniform integers over dst's integer dtype.
Value random_into(Interpreter& in, BoundArgs& a, bool integer_bits) {
  std::string_view api = integer_bits ? "nisa.rng" : "nisa.rand2";
  auto* dst = a["dst"].as<NkiTensorObj>();
  if (!dst) throw NkiError(ErrorKind::Type, fmt::format("dst of {} must be an SBUF tensor", api));
  DType out = dst->dtype();
  if (integer_bits && !tensor::is_integer(out))
    throw NkiError(ErrorKind::Type, fmt::format("{} writes random integers: dst must have an integer dtype, not {} "
                                                "(nisa.rand2 draws floats)", api, tensor::name(out)));
  double lo = 0.0, hi = 1.0;
  if (!integer_bits) {
    lo = to_float(a["min"], "min");
    hi = to_float(a["max"], "max");
    if (!(lo <= hi)) throw NkiError(ErrorKind::Value, fmt::format("{}: min {} is larger than max {}", api, lo, hi));
  }
  Instruction ins(api, trn::Opcode::Other, trn::Engine::Vector, dst->shape(), nullptr);
  Array r = no_values();
  if (ins.computing()) {
    uint64_t& state = KernelContext::current().rng_state;
    std::vector<double> v(static_cast<size_t>(ins.box().elements()));
    int bits = int(8 * tensor::itemsize(out));
    double span = std::ldexp(1.0, bits), low = tensor::is_signed(out) ? -span / 2 : 0.0;
    for (double& x : v) {
      double u = next_uniform(state);
      if (!integer_bits) {
        x = lo + u * (hi - lo);
      } else {
        // One draw holds 24 random bits: a second one fills the low bits of wider integers.
        x = low + std::floor(u * span);
        if (bits > 24) x += std::floor(next_uniform(state) * (span / 0x1.0p24));
      }
    }
    r = Array::from_values(ins.box().shape(), DType::Float64, v);
  }
  assign_into(in, *dst, ins.result(out, trn::BufferKind::Sbuf, r));
  return Value();
}

// nl.rand(shape, dtype=float32): a fresh SBUF tile of uniform [0, 1) values.
Value rand_tile(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.rand";
  std::vector<int64_t> dims = to_int_list(a["shape"], "shape");
  tensor::Shape shape(dims.begin(), dims.end());
  if (shape.empty()) shape = {1};
  Instruction ins(api, trn::Opcode::Other, trn::Engine::Vector, shape, nullptr);
  Array r = no_values();
  if (ins.computing()) {
    uint64_t& state = KernelContext::current().rng_state;
    std::vector<double> v(static_cast<size_t>(ins.box().elements()));
    for (double& x : v) x = next_uniform(state);
    r = Array::from_values(ins.box().shape(), DType::Float64, v);
  }
  return ins.result(dtype_arg(a["dtype"], DType::Float32, api), trn::BufferKind::Sbuf, r);
}

// nl.dropout(x, rate) / nisa.dropout(data, prob): each element becomes 0 with probability rate
// (a scalar or a (P, 1) tile), else passes unchanged (no rescaling, as documented).
Value dropout(Interpreter& in, BoundArgs& a, std::string_view api, const char* data_name, const char* rate_name) {
  NkiTensorObj& x = tile_arg(a[data_name], api, data_name);
  Instruction ins(api, trn::Opcode::Other, trn::Engine::Vector, x.shape(), to_predicate(a["mask"], api));
  Array xv = ins.input(x);
  auto scalar_rate = scalar_arg(a[rate_name]);
  Array rv = no_values();
  if (!scalar_rate) {
    NkiTensorObj& rt = tile_arg(a[rate_name], api, rate_name);
    rv = ins.input(rt);
  }
  Array r = no_values();
  if (ins.computing()) {
    tensor::Shape bs = ins.box().shape();
    std::vector<double> v = values_of(xv);
    std::vector<double> rate = scalar_rate ? std::vector<double>(v.size(), *scalar_rate) : values_of(tensor::broadcast_to(rv, bs));
    uint64_t& state = KernelContext::current().rng_state;
    for (size_t i = 0; i < v.size(); ++i)
      if (next_uniform(state) < rate[i]) v[i] = 0.0;
    r = Array::from_values(bs, DType::Float64, v);
  }
  return ins.result(dtype_arg(a["dtype"], x.dtype(), api), trn::BufferKind::Sbuf, r);
}

// nl.atomic_rmw(dst, value, op): dst = op(dst, value) on HBM by DMA; op must be an addition.
Value atomic_rmw(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.atomic_rmw";
  NkiTensorObj& dst = hbm_arg(a["dst"], api, "dst");
  const AluOp& op = alu_op(a["op"], api, "op");
  if (op.binary != tensor::BinaryOp::Add)
    throw NkiError(ErrorKind::Rule, fmt::format("{} supports only op=np.add, got {}", api, op.name));
  NkiTensorObj& v = tile_arg(a["value"], api, "value");
  int rank = std::max(dst.view.ndim(), v.view.ndim());
  PaddedRef dref(dst, rank), vref(v, rank);
  Instruction ins(api, trn::Opcode::DmaStore, trn::Engine::Dma, dref->shape(), to_predicate(a["mask"], api));
  Array vals = ins.input(*vref);
  ins.output_to(*dref, vals, true);
  return Value();
}

}  // namespace

void add_random_functions(ModuleObj& m) {
  def(m, "nl", "abs_max", {req("x"), req("y"), kwonly("dtype"), kwonly("mask")},
      [](Interpreter& in, BoundArgs& a) { return abs_extreme(in, a, true); });
  def(m, "nl", "abs_min", {req("x"), req("y"), kwonly("dtype"), kwonly("mask")},
      [](Interpreter& in, BoundArgs& a) { return abs_extreme(in, a, false); });
  def(m, "nl", "random_seed", {req("seed"), kwonly("mask")}, random_seed);
  def(m, "nl", "rand", {req("shape"), opt("dtype"), kwonly("buffer"), kwonly("name")}, rand_tile);
  def(m, "nl", "dropout", {req("x"), req("rate"), kwonly("dtype"), kwonly("mask")},
      [](Interpreter& in, BoundArgs& a) { return dropout(in, a, "nl.dropout", "x", "rate"); });
  def(m, "nl", "atomic_rmw", {req("dst"), req("value"), req("op"), kwonly("mask")}, atomic_rmw);
}

void add_isa_random_functions(ModuleObj& m, DefIsa def_isa) {
  def(m, "nisa", "set_rng_seed", {opt("seed"), kwonly("src_seeds"), kwonly("name")}, set_rng_seed);
  def(m, "nisa", "rand2", {req("dst"), req("min"), req("max"), kwonly("engine"), kwonly("name")},
      [](Interpreter& in, BoundArgs& a) { return random_into(in, a, false); });
  def(m, "nisa", "rng", {req("dst"), kwonly("engine"), kwonly("name")},
      [](Interpreter& in, BoundArgs& a) { return random_into(in, a, true); });
  def_isa(m, "dropout", {req("data"), req("prob"), kwonly("mask"), kwonly("dtype")}, 1,
          [](Interpreter& in, BoundArgs& a) { return dropout(in, a, "nisa.dropout", "data", "prob"); });
}

}  // namespace nki::lib
