#include "trn/profile.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace trn {
namespace {

// The summary fields in neuron-profile's order, as (name, member) pairs.
template <typename Fn>
void for_each_count(Profile& p, Fn fn) {
  fn("hbm_read_bytes", p.hbm_read_bytes);
  fn("hbm_write_bytes", p.hbm_write_bytes);
  fn("psum_read_bytes", p.psum_read_bytes);
  fn("psum_write_bytes", p.psum_write_bytes);
  fn("sbuf_read_bytes", p.sbuf_read_bytes);
  fn("sbuf_write_bytes", p.sbuf_write_bytes);
  fn("spill_reload_bytes", p.spill_reload_bytes);
  fn("spill_save_bytes", p.spill_save_bytes);
  fn("hardware_flops", p.hardware_flops);
  fn("transpose_flops", p.transpose_flops);
}

template <typename Fn>
void for_each_ratio(Profile& p, Fn fn) {
  fn("latency", p.latency);
  fn("latency_low", p.latency_low);
  fn("latency_high", p.latency_high);
  fn("peak_flops_bandwidth_ratio", p.peak_flops_bandwidth_ratio);
  fn("mm_arithmetic_intensity", p.mm_arithmetic_intensity);
  fn("hfu_estimated_percent", p.hfu_estimated_percent);
  fn("tensor_engine_active_time_percent", p.tensor_engine_active_time_percent);
  fn("scalar_engine_active_time_percent", p.scalar_engine_active_time_percent);
  fn("vector_engine_active_time_percent", p.vector_engine_active_time_percent);
  fn("gpsimd_engine_active_time_percent", p.gpsimd_engine_active_time_percent);
  fn("dma_active_time_percent", p.dma_active_time_percent);
}

[[noreturn]] void wrong_type(const char* field, const char* expected) {
  throw std::runtime_error(std::string("profile field '") + field + "' must be " + expected);
}

}  // namespace

nlohmann::json to_json(const Profile& profile) {
  Profile p = profile;
  nlohmann::json j = nlohmann::json::object();
  for_each_ratio(p, [&](const char* name, double& v) { j[name] = v; });
  for_each_count(p, [&](const char* name, uint64_t& v) { j[name] = v; });
  // The simulator's own field: absent when unknown (a real profiler's profile).
  if (p.sbuf_space_wait_ms) j["sbuf_space_wait_ms"] = *p.sbuf_space_wait_ms;
  j["engine_busy_ms"] = p.engine_busy_ms;
  j["instructions"] = p.instructions;
  j["arch"] = p.arch;
  if (!p.bound_class.empty()) j["bound_class"] = p.bound_class;
  return j;
}

Profile profile_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("profile must be a JSON object");
  Profile p;
  for_each_ratio(p, [&](const char* name, double& v) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_number()) wrong_type(name, "a number");
    v = it->get<double>();
  });
  for_each_count(p, [&](const char* name, uint64_t& v) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_number()) wrong_type(name, "a number");
    double d = it->get<double>();
    if (d < 0) wrong_type(name, "a non-negative number");
    v = it->is_number_unsigned() ? it->get<uint64_t>() : uint64_t(d);
  });
  if (auto it = j.find("engine_busy_ms"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) wrong_type("engine_busy_ms", "an object");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_number()) wrong_type("engine_busy_ms", "an object of numbers");
      p.engine_busy_ms[name] = value.get<double>();
    }
  }
  if (auto it = j.find("sbuf_space_wait_ms"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() < 0) wrong_type("sbuf_space_wait_ms", "a non-negative number");
    p.sbuf_space_wait_ms = it->get<double>();
  }
  if (auto it = j.find("instructions"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0)
      wrong_type("instructions", "a non-negative integer");
    p.instructions = it->get<uint64_t>();
  }
  if (auto it = j.find("arch"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) wrong_type("arch", "a string");
    p.arch = it->get<std::string>();
  }
  if (auto it = j.find("bound_class"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) wrong_type("bound_class", "a string");
    p.bound_class = it->get<std::string>();
  }
  return p;
}

}  // namespace trn
