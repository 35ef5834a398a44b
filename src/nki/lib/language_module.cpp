// The nki.language module (imported as neuronxcc.nki.language or nki.language): constants,
// index construction, loop ranges, and the function groups of the other language_*.cpp files.
#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/index_expr.h"
#include "nki/lib/kernel_launch.h"
#include "nki/lib/language_creation.h"
#include "nki/lib/language_math.h"
#include "nki/interpreter.h"
#include "nki/lib/loop_range.h"
#include "nki/lib/modules.h"
#include "nki/lib/module_util.h"
#include "trn/tile_limits.h"

namespace nki::lib {

namespace {

const std::string kNl = "nl";

void add_buffers(ModuleObj& m) {
  m.attrs["sbuf"] = Value(std::make_shared<BufferObj>(trn::BufferKind::Sbuf, "sbuf"));
  m.attrs["psum"] = Value(std::make_shared<BufferObj>(trn::BufferKind::Psum, "psum"));
  m.attrs["hbm"] = Value(std::make_shared<BufferObj>(trn::BufferKind::Hbm, "hbm"));
  m.attrs["private_hbm"] = Value(std::make_shared<BufferObj>(trn::BufferKind::Hbm, "private_hbm"));
  m.attrs["shared_hbm"] = Value(std::make_shared<BufferObj>(trn::BufferKind::Hbm, "shared_hbm"));
}

Value tile_size_constants() {
  auto ns = std::make_shared<NamespaceObj>("tile_size");
  for (const auto& l : trn::limits::tile_size) ns->set(std::string(l.name), Value::from_int(l.value));
  return Value(ns);
}

void add_limits(ModuleObj& m) {
  auto fp32 = std::make_shared<NamespaceObj>("fp32");
  fp32->set("min", Value::from_float(-3.4028234663852886e38));
  fp32->set("max", Value::from_float(3.4028234663852886e38));
  m.attrs["fp32"] = Value(fp32);
  auto bfp16 = std::make_shared<NamespaceObj>("bfp16");
  bfp16->set("min", Value::from_float(-3.3895313892515355e38));
  m.attrs["bfp16"] = Value(bfp16);
  m.attrs["tile_size"] = tile_size_constants();
}

void add_index_functions(ModuleObj& m) {
  def(m, kNl, "arange", {req("start"), opt("stop"), opt("step")}, [](Interpreter&, BoundArgs& a) {
    // nl.arange(stop) or nl.arange(start, stop): the API has no step (nki-language.md 4.2); a
    // strided index is an arange scaled by an integer, which is what the compiler accepts.
    if (!a["step"].is_none())
      throw NkiError(ErrorKind::Unsupported,
                     "nl.arange takes no step (nl.arange(stop) or nl.arange(start, stop)); write a strided index "
                     "as an arange times the step, e.g. start + step * nl.arange(n)");
    int64_t start = to_int(a["start"], "nl.arange start");
    if (a["stop"].is_none()) return make_index_expr(IndexExpr::arange(0, start));
    return make_index_expr(IndexExpr::arange(start, to_int(a["stop"], "nl.arange stop"), 1));
  });
  m.attrs["mgrid"] = Value(std::make_shared<MGridObj>());
  def(m, kNl, "ds", {req("start"), req("size")}, [](Interpreter&, BoundArgs& a) {
    auto s = std::make_shared<SliceObj>();
    int64_t start = to_int(a["start"], "nl.ds start"), size = to_int(a["size"], "nl.ds size");
    s->start = Value::from_int(start);
    s->stop = Value::from_int(start + size);
    return Value(s);
  });
  // `(*args, **kwargs)` in the reference (nki-language.md 5): the bounds by position, the newer
  // API's stop= and step= by keyword, and the two scheduling hints the document lists
  // (directives=, precise_schedule=); any other keyword is refused.
  auto loop = [&](const char* name, trn::LoopKind kind) {
    Signature sig{std::string("nl.") + name,
                  {kwonly("stop"), kwonly("step"), kwonly("directives"), kwonly("precise_schedule")},
                  true, false};
    m.attrs[name] = Value(make_builtin(std::move(sig), [name, kind](Interpreter&, BoundArgs& a) {
      if (!a["directives"].is_none()) apply_loop_directives(a["directives"]);
      std::vector<Value> bounds = a.rest;
      if (a.was_given("stop") || a.was_given("step")) {
        if (bounds.size() != 1)
          throw NkiError(ErrorKind::Type, fmt::format("nl.{}() takes stop= and step= after one positional start", name));
        // range(start, stop=None, step): a missing stop makes `start` the stop, as range(n) does.
        if (a["stop"].is_none()) bounds.insert(bounds.begin(), Value::from_int(0));
        else bounds.push_back(a["stop"]);
        if (a.was_given("step")) bounds.push_back(a["step"]);
      }
      return make_loop_range(kind, bounds, std::string("nl.") + name);
    }));
  };
  loop("affine_range", trn::LoopKind::Affine);
  loop("sequential_range", trn::LoopKind::Sequential);
  loop("static_range", trn::LoopKind::Static);
  // Newer API: a register-driven loop on the device; run concretely, it is a sequential loop.
  loop("dynamic_range", trn::LoopKind::Sequential);
  // nl.fori_loop(lower, upper, body_fun, step=1) (NKI 0.6): body_fun(i) for each i.
  def(m, kNl, "fori_loop", {req("lower"), req("upper"), req("body_fun"), opt("step", Value::from_int(1))},
      [](Interpreter& in, BoundArgs& a) {
        std::vector<Value> bounds{a["lower"], a["upper"], a["step"]};
        Value range = make_loop_range(trn::LoopKind::Sequential, bounds, "nl.fori_loop");
        auto it = in.iterate(range);
        for (Value i; it->next(i);) in.call(a["body_fun"], CallArgs{{i}, {}});
        return Value();
      });
  // with nl.no_reorder(): (newer API spelling of nki.compiler.no_reorder)
  for (auto& [name, directive] : compiler_directives())
    if (name == "no_reorder") m.attrs["no_reorder"] = directive;
  def(m, kNl, "program_id", {opt("axis", Value::from_int(0))},
      [](Interpreter&, BoundArgs& a) { return Value::from_int(program_id(to_int(a["axis"], "nl.program_id axis"))); });
  def(m, kNl, "num_programs", {opt("axes")}, [](Interpreter&, BoundArgs& a) { return Value::from_int(num_programs(a["axes"])); });
  def(m, kNl, "program_ndim", {}, [](Interpreter&, BoundArgs&) { return Value::from_int(program_ndim()); });
  // Launch-grid dimensions: nl.spmd_dim(n, nl.nc(k)) is n * k programs, nl.nc(k) is k.
  def(m, kNl, "nc", {req("n")}, [](Interpreter&, BoundArgs& a) {
    return Value(std::make_shared<SpmdDimObj>(to_int(a["n"], "nl.nc")));
  });
  Signature spmd{"nl.spmd_dim", {}, true, false};
  m.attrs["spmd_dim"] = Value(make_builtin(std::move(spmd), [](Interpreter&, BoundArgs& a) {
    int64_t n = 1;
    for (const Value& v : a.rest) {
      if (auto* d = v.is_object() ? dynamic_cast<SpmdDimObj*>(v.object().get()) : nullptr) n *= d->size;
      else n *= to_int(v, "nl.spmd_dim");
    }
    return Value(std::make_shared<SpmdDimObj>(n));
  }));
}

}  // namespace

ObjectPtr make_language_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki.language");
  add_dtype_constants(*m);
  add_buffers(*m);
  add_limits(*m);
  add_index_functions(*m);
  add_creation_functions(*m, kNl);
  add_data_functions(*m);
  add_math_functions(*m);
  add_composite_functions(*m);
  add_random_functions(*m);
  refuse(*m, "nl", "all_reduce", "it reduces across SPMD programs running on several NeuronCores; accelopt runs one core");
  refuse(*m, "nl", "while_loop", "its condition is a run-time register value, which the interpreter does not model");
  return m;
}

}  // namespace nki::lib
