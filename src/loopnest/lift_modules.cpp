// The modules a kernel imports and their names (lifter.h): a dotted path as the module it is
// (`neuronxcc.nki.language` is nki.language), an API's short name, and an attribute of a module
// as the value it is (a function, a dtype, an enum member, a number such as `np.pi`).
#include <cmath>
#include <set>

#include "loopnest/lifter.h"
#include "trn/tile_limits.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

std::string canonical_module(const std::string& dotted) {
  static const std::map<std::string, std::string> known = {
      {"neuronxcc.nki", "nki"},           {"nki", "nki"},
      {"neuronxcc.nki.language", "nki.language"}, {"nki.language", "nki.language"},
      {"neuronxcc.nki.isa", "nki.isa"},   {"nki.isa", "nki.isa"},
      {"neuronxcc.nki.typing", "nki.typing"}, {"nki.typing", "nki.typing"},
      {"numpy", "numpy"},                 {"math", "math"},
      {"neuronxcc", "neuronxcc"},         {"functools", "functools"},
      {"itertools", "itertools"},
      {"neuronxcc.nki.compiler", "nki.compiler"}, {"nki.compiler", "nki.compiler"},
  };
  auto it = known.find(dotted);
  return it == known.end() ? "" : it->second;
}

std::string short_api(const std::string& path) {
  if (path.rfind("nki.language.", 0) == 0) return "nl." + path.substr(13);
  if (path.rfind("nki.isa.", 0) == 0) return "nisa." + path.substr(8);
  if (path.rfind("numpy.", 0) == 0) return "np." + path.substr(6);
  if (path.rfind("builtins.", 0) == 0) return path.substr(9);
  return path;
}

namespace {

const std::set<std::string>& dtype_names() {
  static const std::set<std::string> names = {"float32", "float16", "bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2",
                                              "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool_", "float64",
                                              "int64", "uint64"};
  return names;
}

}  // namespace

AValue module_attr(const std::string& path, const std::string& attr) {
  std::string full = path + "." + attr;
  if (!canonical_module(full).empty() && full != "nki.jit") return AValue::of_kind(K::Module, canonical_module(full));
  if (path == "nki.compiler" && (attr == "sbuf" || attr == "psum")) return AValue::of_kind(K::Module, full);
  if (path == "nki" && (attr == "language" || attr == "isa" || attr == "typing" || attr == "compiler"))
    return AValue::of_kind(K::Module, full);
  // nl.bool_ / np.bool_ is the dtype the form names "bool" (tensor::name; a comparison's result).
  if (dtype_names().count(attr) && (path == "numpy" || path == "nki.language"))
    return AValue::of_kind(K::DType, attr == "bool_" ? "bool" : attr);
  if (path == "nki.language") {
    for (const char* b : {"sbuf", "psum", "hbm", "shared_hbm", "private_hbm"})
      if (attr == b) return AValue::of_kind(K::Symbol, std::string("buffer:") + b);
    if (attr == "tile_size") return AValue::of_kind(K::Module, "nki.language.tile_size");
  }
  // nl.fp32.min / nisa.fp32.min (and max): the language core's values (language_module.cpp).
  if ((path == "nki.language" || path == "nki.isa") && attr == "fp32") return AValue::of_kind(K::Module, full);
  if (path == "nki.language.fp32" || path == "nki.isa.fp32") {
    if (attr == "min") return AValue::of_float(-3.4028234663852886e38);
    if (attr == "max" && path == "nki.language.fp32") return AValue::of_float(3.4028234663852886e38);
  }
  if (path == "nki.language.tile_size") {
    // The values the language core gives them (trn/tile_limits.h).
    if (auto v = trn::limits::tile_size_value(attr)) return AValue::of_int(*v);
  }
  if (path == "nki.isa" || path == "nki.isa.engine") {
    std::string e = attr;
    if (e.size() > 7 && e.substr(e.size() - 7) == "_engine") e = e.substr(0, e.size() - 7);
    for (const char* n : {"vector", "scalar", "gpsimd", "tensor", "dma", "unknown", "activation", "pool", "pe"})
      if (e == n && (path == "nki.isa.engine" || attr != e)) return AValue::of_kind(K::Symbol, "engine:" + e);
    if (attr == "engine") return AValue::of_kind(K::Module, "nki.isa.engine");
    // Enumerations of instruction arguments: nisa.reduce_cmd.reset_reduce, nisa.dge_mode.none, ...
    for (const char* en : {"reduce_cmd", "dge_mode", "oob_mode", "matmul_perf_mode", "nc_version"})
      if (attr == en && path == "nki.isa") return AValue::of_kind(K::Module, full);
  }
  // nisa.nc_version.gen2 / gen3: the integers nisa.get_nc_version() is compared with (8.5).
  if (path == "nki.isa.nc_version" && (attr == "gen2" || attr == "gen3")) return AValue::of_int(attr == "gen2" ? 2 : 3);
  for (const char* en : {"reduce_cmd", "dge_mode", "oob_mode", "matmul_perf_mode"})
    if (path == std::string("nki.isa.") + en) return AValue::of_kind(K::Symbol, std::string("isa.") + en + ":" + attr);
  if ((path == "math" || path == "numpy") && attr == "pi") return AValue::of_float(M_PI);
  // `nl.minimum(res, np.inf)`: a number (printed `float('inf')` from the form), not a function.
  if ((path == "math" || path == "numpy") && attr == "inf") return AValue::of_float(INFINITY);
  return AValue::of_kind(K::Func, full);
}

}  // namespace loopnest::detail
