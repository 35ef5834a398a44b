#include "agents/prompt_vars.h"

#include <fmt/core.h>

namespace agents {

std::string format_latency(double ms) { return fmt::format("{:.4f} ms", ms); }

std::string format_profile(const std::optional<trn::Profile>& profile, double peak_latency_ms) {
  if (!profile) return "(no profile)";
  const auto& p = *profile;
  // The *_percent fields hold fractions in the profile (as neuron-profile reports them); the
  // prompt gives them as percentages, and says so.
  std::string out = "(fields ending in _percent are percentages, 0 to 100)\n";
  out += fmt::format("- latency: {}\n", format_latency(p.latency));
  // The simulator's error band for this kind of kernel (trn/error_band.h): a gain smaller than
  // the band may not hold on a device.
  if (p.latency_high > 0)
    out += fmt::format("- latency on a device, error band of the simulator for {}-bound kernels: {} to {}\n",
                       p.bound_class, format_latency(p.latency_low), format_latency(p.latency_high));
  if (peak_latency_ms > 0 && p.latency > 0)
    out += fmt::format("- percent of peak: {:.1f}%\n", 100.0 * peak_latency_ms / p.latency);
  out += fmt::format("- hbm_read_bytes: {}\n- hbm_write_bytes: {}\n", p.hbm_read_bytes, p.hbm_write_bytes);
  out += fmt::format("- sbuf_read_bytes: {}\n- sbuf_write_bytes: {}\n", p.sbuf_read_bytes, p.sbuf_write_bytes);
  out += fmt::format("- psum_read_bytes: {}\n- psum_write_bytes: {}\n", p.psum_read_bytes, p.psum_write_bytes);
  out += fmt::format("- spill_save_bytes: {}\n- spill_reload_bytes: {}\n", p.spill_save_bytes, p.spill_reload_bytes);
  out += fmt::format("- hardware_flops: {}\n- transpose_flops: {}\n", p.hardware_flops, p.transpose_flops);
  out += fmt::format("- mm_arithmetic_intensity: {:.3f}\n", p.mm_arithmetic_intensity);
  out += fmt::format("- peak_flops_bandwidth_ratio: {:.3f}\n", p.peak_flops_bandwidth_ratio);
  out += fmt::format("- hfu_estimated_percent: {:.2f}%\n", 100 * p.hfu_estimated_percent);
  out += fmt::format("- scalar_engine_active_time_percent: {:.2f}%\n", 100 * p.scalar_engine_active_time_percent);
  out += fmt::format("- vector_engine_active_time_percent: {:.2f}%\n", 100 * p.vector_engine_active_time_percent);
  out += fmt::format("- gpsimd_engine_active_time_percent: {:.2f}%\n", 100 * p.gpsimd_engine_active_time_percent);
  return out;
}

std::string format_memory(const Memory& memory) {
  if (memory.empty()) return "(none yet)";
  std::string out;
  int index = 1;
  for (const auto& item : memory.items()) {
    out += fmt::format("{}. [{} rewrite, {:.2f}x, task {}] {}\n   Key change: {}\n   Lesson: {}\n", index++,
                       item.positive ? "positive" : "negative", item.speedup, item.task, item.plan, item.key_change,
                       item.lesson);
  }
  return out;
}

PromptVars common_vars(const PromptLibrary& prompts, const TaskInfo& task) {
  return {{"task", task.name},
          {"arch", task.arch},
          {"reference", task.reference_text},
          {"guide", prompts.text("guide")},
          {"rules", prompts.text("rules")}};
}

}  // namespace agents
