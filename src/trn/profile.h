// The profile of one kernel run: the neuron-profile summary fields (same names and meanings,
// design.md "Profile") plus per-engine busy time. Produced by the simulator, or parsed from a
// real profiler's JSON output (eval's `command` profiler).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace trn {

struct Profile {
  double latency = 0;  // ms
  uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
  uint64_t psum_read_bytes = 0, psum_write_bytes = 0;
  uint64_t sbuf_read_bytes = 0, sbuf_write_bytes = 0;
  uint64_t spill_reload_bytes = 0, spill_save_bytes = 0;
  uint64_t hardware_flops = 0, transpose_flops = 0;
  double peak_flops_bandwidth_ratio = 0;
  double mm_arithmetic_intensity = 0;
  double hfu_estimated_percent = 0;  // fraction 0..1, as neuron-profile reports it
  // Time an engine processes at least one instruction, semaphore waits excluded, as a fraction of
  // latency; DMA: time at least one transfer moves data (SCHEMA).
  double tensor_engine_active_time_percent = 0;
  double scalar_engine_active_time_percent = 0;  // fractions 0..1
  double vector_engine_active_time_percent = 0;
  double gpsimd_engine_active_time_percent = 0;
  double dma_active_time_percent = 0;
  // The model's uncertainty (trn/error_band.h): the range the device's latency fell in, relative
  // to the simulated one, on the fidelity suite's kernels of this bound class. 0 when unknown
  // (e.g. a real profiler's profile).
  double latency_low = 0, latency_high = 0;  // ms
  std::string bound_class;                   // "pe", "act", "dve", "pool", "dma" or "latency"
  // accelopt's own field (neuron-profile has none): what SBUF space costs the kernel, in ms: its
  // latency less the latency of the same trace on a core whose SBUF never runs out
  // (docs/simulator.md, On-chip memory). Set by the simulator; unknown (empty) for a real
  // profiler's profile.
  std::optional<double> sbuf_space_wait_ms;
  // Extras beyond the summary: busy time per engine/queue in ms ("pe", "act", "dve", "pool", "dma").
  std::map<std::string, double> engine_busy_ms;
  uint64_t instructions = 0;
  std::string arch;  // "trn1" / "trn2" (or the real profiler's device name)
};

nlohmann::json to_json(const Profile& p);
// Reads the neuron-profile field names; unknown fields are ignored, missing ones stay 0.
// Throws std::runtime_error naming the field when a present field has the wrong type.
Profile profile_from_json(const nlohmann::json& j);

}  // namespace trn
