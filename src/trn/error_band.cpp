#include "trn/error_band.h"

#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace trn {

// Defined in the generated error_band_table.cpp (src/trn/CMakeLists.txt): fidelity/band.json.
extern const char* const kBuiltinErrorBandJson;

namespace {

constexpr std::pair<BoundClass, const char*> kNames[] = {
    {BoundClass::Pe, "pe"},     {BoundClass::Act, "act"}, {BoundClass::Dve, "dve"},
    {BoundClass::Pool, "pool"}, {BoundClass::Dma, "dma"}, {BoundClass::Latency, "latency"},
};

ErrorBand band_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("low") || !j.contains("high") || !j["low"].is_number() ||
      !j["high"].is_number())
    throw std::runtime_error(fmt::format("error band '{}' needs numbers 'low' and 'high'", where));
  ErrorBand b;
  b.low = j["low"].get<double>();
  b.high = j["high"].get<double>();
  b.samples = j.value("samples", 0);
  if (!(b.low > 0) || !(b.high >= b.low))
    throw std::runtime_error(fmt::format("error band '{}' must have 0 < low <= high", where));
  return b;
}

nlohmann::json band_json(const ErrorBand& b) {
  return {{"low", b.low}, {"high", b.high}, {"samples", b.samples}};
}

}  // namespace

const char* to_string(BoundClass c) {
  for (const auto& [k, name] : kNames)
    if (k == c) return name;
  return "?";
}

std::optional<BoundClass> parse_bound_class(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (name == n) return k;
  return std::nullopt;
}

BoundClass classify(const Profile& p) {
  if (!(p.latency > 0)) return BoundClass::Latency;
  BoundClass best = BoundClass::Latency;
  double best_share = 0;
  for (const auto& [k, name] : kNames) {
    auto it = p.engine_busy_ms.find(name);
    if (it == p.engine_busy_ms.end()) continue;
    double share = it->second / p.latency;
    if (share > best_share) best = k, best_share = share;
  }
  return best_share >= kBoundBusyShare ? best : BoundClass::Latency;
}

ErrorBandTable error_band_table_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", "") != "accelopt-error-band/1")
    throw std::runtime_error("not an error band table (expected \"format\": \"accelopt-error-band/1\")");
  ErrorBandTable t;
  t.min_samples = j.value("min_samples", 4);
  t.quantile = j.value("quantile", 0.1);
  t.derived_from = j.value("derived_from", "");
  if (!j.contains("pooled")) throw std::runtime_error("error band table has no 'pooled' band");
  t.pooled = band_from_json(j["pooled"], "pooled");
  if (j.contains("speedup")) t.speedup = band_from_json(j["speedup"], "speedup");
  if (j.contains("classes")) {
    if (!j["classes"].is_object()) throw std::runtime_error("error band 'classes' must be an object");
    for (const auto& [name, band] : j["classes"].items()) {
      auto c = parse_bound_class(name);
      if (!c) throw std::runtime_error(fmt::format("unknown bound class '{}' in the error band table", name));
      t.classes[*c] = band_from_json(band, name);
    }
  }
  return t;
}

nlohmann::json to_json(const ErrorBandTable& t) {
  nlohmann::json classes = nlohmann::json::object();
  for (const auto& [c, b] : t.classes) classes[to_string(c)] = band_json(b);
  return {{"format", "accelopt-error-band/1"}, {"derived_from", t.derived_from}, {"min_samples", t.min_samples},
          {"quantile", t.quantile}, {"pooled", band_json(t.pooled)}, {"classes", classes},
          {"speedup", band_json(t.speedup)}};
}

const ErrorBandTable& builtin_error_band_table() {
  static const ErrorBandTable table = error_band_table_from_json(nlohmann::json::parse(kBuiltinErrorBandJson));
  return table;
}

ErrorBand band_for(const ErrorBandTable& t, BoundClass c) {
  auto it = t.classes.find(c);
  if (it != t.classes.end() && it->second.samples >= t.min_samples) return it->second;
  return t.pooled;
}

void apply_error_band(Profile& p, const ErrorBandTable& t) {
  BoundClass c = classify(p);
  ErrorBand b = band_for(t, c);
  p.bound_class = to_string(c);
  p.latency_low = p.latency * b.low;
  p.latency_high = p.latency * b.high;
}

}  // namespace trn
