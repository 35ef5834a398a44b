// np.random: numpy's legacy global RandomState (seed, normal, uniform, rand, randn, random_sample),
// one stream per interpreter, bit-identical to numpy for the same seed and call sequence.
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"
#include "tensor/random.h"

namespace nki::lib::np {

using tensor::Array;

namespace {


struct RandomStream {
  tensor::LegacyRandom rng{0};
};

tensor::LegacyRandom& stream(Interpreter& in) {
  auto* s = in.extension<RandomStream>();
  if (!s) {
    in.set_extension(std::make_shared<RandomStream>());
    s = in.extension<RandomStream>();
  }
  return s->rng;
}

double scalar_param(const Value& v, const char* what) {
  if (v.is(ObjType::NdArray) && v.as<NdArrayObj>()->array.size() != 1)
    throw NkiError(ErrorKind::Unsupported, fmt::format("np.random: array-valued {} is not supported", what));
  return to_float(v, what);
}

// size=None gives one Python float; otherwise an array filled in C order.
template <class Draw, class Fill>
Value sample(Interpreter& in, const Value& size, Draw draw, Fill fill) {
  if (size.is_none()) return Value::from_float(draw());
  tensor::Shape shape = shape_arg(size, "size");
  for (int64_t d : shape)
    if (d < 0) throw NkiError(ErrorKind::Value, "negative dimensions are not allowed");
  return make_array(fill(shape, numpy_shape_only(in)));
}

tensor::Shape dims_arg(const BoundArgs& a) {
  tensor::Shape shape;
  for (const Value& v : a.rest) shape.push_back(to_int(v, "dimension"));
  return shape;
}

// off + a draw in [0, rng] as numpy's random_bounded_uint64_fill (use_masked, legacy).
int64_t bounded(tensor::LegacyRandom& r, int64_t off, uint64_t rng) {
  if (rng == 0) return off;
  if (rng > 0xFFFFFFFFULL) throw NkiError(ErrorKind::Unsupported, "np.random.randint: ranges above 2**32 are not supported");
  if (rng == 0xFFFFFFFFULL) return off + int64_t(r.next_u32());
  uint32_t mask = uint32_t(rng);
  for (int shift = 1; shift < 32; shift *= 2) mask |= mask >> shift;
  uint32_t v;
  while ((v = r.next_u32() & mask) > rng) {
  }
  return off + int64_t(v);
}

Value bounded_ints(Interpreter& in, tensor::LegacyRandom& r, int64_t off, uint64_t rng, const Value& size) {
  if (size.is_none()) return Value::from_int(bounded(r, off, rng));
  tensor::Shape shape = shape_arg(size, "size");
  int64_t n = tensor::num_elements(shape);
  if (numpy_shape_only(in)) return make_array(Array::shape_only(shape, tensor::DType::Int64));
  std::vector<double> vals(static_cast<size_t>(n));
  for (auto& v : vals) v = double(bounded(r, off, rng));
  return make_array(Array::from_values(shape, tensor::DType::Int64, vals));
}

void shuffle_first_axis(Interpreter& in, const Value& x, tensor::LegacyRandom& r) {
  if (auto* list = x.as<ListObj>()) {
    for (int64_t i = int64_t(list->items.size()) - 1; i > 0; --i) std::swap(list->items[size_t(i)], list->items[size_t(bounded(r, 0, uint64_t(i)))]);
    return;
  }
  auto* nd = x.as<NdArrayObj>();
  if (!nd || nd->array.ndim() < 1) throw NkiError(ErrorKind::Type, "shuffle: x must be a list or an array of at least one dimension");
  Array& arr = nd->array;
  int64_t n = arr.shape()[0];
  if (!arr.has_data()) return;
  in.charge_steps(uint64_t(n));
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = bounded(r, 0, uint64_t(i));
    if (i == j) continue;
    Array row_i = tensor::get_index(arr, {tensor::IndexItem{i}}).copy();
    Array row_j = tensor::get_index(arr, {tensor::IndexItem{j}});
    tensor::set_index(arr, {tensor::IndexItem{i}}, row_j);
    tensor::set_index(arr, {tensor::IndexItem{j}}, row_i);
  }
}

void add(ModuleObj& m, const std::string& name, std::vector<Param> params, std::function<Value(Interpreter&, BoundArgs&)> fn,
         bool var_args = false) {
  Signature sig{"np.random." + name, std::move(params), var_args, false};
  m.attrs[name] = Value(make_builtin(std::move(sig), std::move(fn)));
}

}  // namespace

ObjectPtr make_random_module() {
  auto m = std::make_shared<ModuleObj>("numpy.random");
  add(*m, "seed", {opt("seed")}, [](Interpreter& in, BoundArgs& a) {
    if (a["seed"].is_none()) throw NkiError(ErrorKind::Unsupported, "np.random.seed() needs an explicit seed (runs are deterministic)");
    int64_t s = to_int(a["seed"], "seed");
    if (s < 0 || s > 4294967295LL) throw NkiError(ErrorKind::Value, "Seed must be between 0 and 2**32 - 1");
    stream(in).seed_with(static_cast<uint32_t>(s));
    return Value();
  });
  add(*m, "normal", {opt("loc", Value::from_float(0.0)), opt("scale", Value::from_float(1.0)), opt("size")},
      [](Interpreter& in, BoundArgs& a) {
        double loc = scalar_param(a["loc"], "loc"), scale = scalar_param(a["scale"], "scale");
        if (scale < 0) throw NkiError(ErrorKind::Value, "scale < 0");
        auto& rng = stream(in);
        return sample(in, a["size"], [&] { return rng.normal(loc, scale); },
                      [&](const tensor::Shape& s, bool so) { return rng.normal_array(loc, scale, s, so); });
      });
  add(*m, "uniform", {opt("low", Value::from_float(0.0)), opt("high", Value::from_float(1.0)), opt("size")},
      [](Interpreter& in, BoundArgs& a) {
        double low = scalar_param(a["low"], "low"), high = scalar_param(a["high"], "high");
        auto& rng = stream(in);
        return sample(in, a["size"], [&] { return rng.uniform(low, high); },
                      [&](const tensor::Shape& s, bool so) { return rng.uniform_array(low, high, s, so); });
      });
  for (const char* name : {"random_sample", "random", "ranf", "sample"}) {
    add(*m, name, {opt("size")}, [](Interpreter& in, BoundArgs& a) {
      auto& rng = stream(in);
      return sample(in, a["size"], [&] { return rng.random_sample(); },
                    [&](const tensor::Shape& s, bool so) { return rng.random_array(s, so); });
    });
  }
  add(*m, "standard_normal", {opt("size")}, [](Interpreter& in, BoundArgs& a) {
    auto& rng = stream(in);
    return sample(in, a["size"], [&] { return rng.gauss(); },
                  [&](const tensor::Shape& s, bool so) { return rng.normal_array(0.0, 1.0, s, so); });
  });
  add(*m, "rand", {}, [](Interpreter& in, BoundArgs& a) {
    auto& rng = stream(in);
    if (a.rest.empty()) return Value::from_float(rng.random_sample());
    return make_array(rng.random_array(dims_arg(a), numpy_shape_only(in)));
  }, true);
  add(*m, "randn", {}, [](Interpreter& in, BoundArgs& a) {
    auto& rng = stream(in);
    if (a.rest.empty()) return Value::from_float(rng.gauss());
    return make_array(rng.normal_array(0.0, 1.0, dims_arg(a), numpy_shape_only(in)));
  }, true);
  // randint(low, high=None, size=None): numpy's legacy bounded draws for the default int64
  // dtype -- masked rejection on 32-bit outputs when the range fits in 32 bits.
  add(*m, "randint", {opt("low"), opt("high"), opt("size"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    int64_t low = to_int(a["low"], "low"), high;
    if (a["high"].is_none()) high = low, low = 0;
    else high = to_int(a["high"], "high");
    if (high <= low) throw NkiError(ErrorKind::Value, "low >= high");
    auto d = to_dtype(a["dtype"], "dtype");
    if (d && *d != tensor::DType::Int64)
      throw NkiError(ErrorKind::Unsupported, "np.random.randint: only the default int64 dtype is supported");
    auto& rng = stream(in);
    return bounded_ints(in, rng, low, uint64_t(high - low - 1), a["size"]);
  });
  // choice(a, size=None, replace=True): uniform draws with replacement (randint indices).
  // shuffle(x) / permutation(x): numpy's legacy Fisher-Yates (for i = n-1 .. 1, swap i with a
  // draw in [0, i]) over the first axis; permutation shuffles a copy (or arange(n) for an int).
  add(*m, "shuffle", {req("x")}, [](Interpreter& in, BoundArgs& a) {
    shuffle_first_axis(in, a["x"], stream(in));
    return Value();
  });
  add(*m, "permutation", {req("x")}, [](Interpreter& in, BoundArgs& a) {
    Value x = a["x"];
    Array arr = x.is_int() ? tensor::arange(0, double(x.as_int()), 1, tensor::DType::Int64) : to_array(in, x).copy();
    if (arr.ndim() < 1) throw NkiError(ErrorKind::Index, "x must be an integer or at least 1-dimensional");
    Value v = make_array(arr);
    shuffle_first_axis(in, v, stream(in));
    return v;
  });
  add(*m, "choice", {opt("a"), opt("size"), opt("replace", Value::from_bool(true)), opt("p")}, [](Interpreter& in, BoundArgs& a) {
    if (!a["p"].is_none() || !a["replace"].truthy())
      throw NkiError(ErrorKind::Unsupported, "np.random.choice: only uniform draws with replacement (p=None, replace=True) are supported");
    bool from_int = a["a"].is_int() || a["a"].is_bool();
    Array pop = from_int ? Array() : to_array(in, a["a"]);
    int64_t n = from_int ? to_int(a["a"], "a") : (pop.ndim() ? pop.shape()[0] : 0);
    if (n <= 0) throw NkiError(ErrorKind::Value, "a must be a positive integer or a non-empty sequence");
    auto& rng = stream(in);
    Value idx = bounded_ints(in, rng, 0, uint64_t(n - 1), a["size"]);
    if (from_int) return idx;
    return in.get_item(make_array(pop), idx);
  });
  return m;
}

}  // namespace nki::lib::np
