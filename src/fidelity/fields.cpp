#include "fidelity/fields.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fidelity {

// Tolerances (docs/simulator.md "Profile", what each field counts and its evidence). Counted
// fields that follow from the program alone (HBM bytes, FLOPs, the SBUF/PSUM counting rule) are
// held to 2%; fields that follow from the simulated time (latency, HFU, engine active time) to
// the suite's latency spread; a fraction near zero to an absolute slack.
const std::vector<FieldSpec>& compared_fields() {
  static const std::vector<FieldSpec> fields = {
      {"latency", std::log(1.5), 0},
      {"hbm_read_bytes", std::log(1.02), 0},
      {"hbm_write_bytes", std::log(1.02), 0},
      {"psum_read_bytes", std::log(1.02), 0},
      {"psum_write_bytes", std::log(1.02), 0},
      {"sbuf_read_bytes", std::log(1.02), 0},
      {"sbuf_write_bytes", std::log(1.02), 0},
      {"spill_reload_bytes", std::log(1.02), 0},
      {"spill_save_bytes", std::log(1.02), 0},
      {"hardware_flops", std::log(1.02), 0},
      {"transpose_flops", std::log(1.02), 0},
      {"peak_flops_bandwidth_ratio", std::log(1.001), 0},
      {"mm_arithmetic_intensity", std::log(1.02), 0},
      {"hfu_estimated_percent", std::log(1.5), 0.02},
      {"tensor_engine_active_time_percent", std::log(1.5), 0.05},
      {"scalar_engine_active_time_percent", std::log(1.5), 0.05},
      {"vector_engine_active_time_percent", std::log(1.5), 0.05},
      {"gpsimd_engine_active_time_percent", std::log(1.5), 0.02},
      {"dma_active_time_percent", std::log(1.5), 0.05},
  };
  return fields;
}

std::vector<FieldRow> compare_fields(const nlohmann::json& simulated, const std::map<std::string, double>& recorded) {
  std::vector<FieldRow> rows;
  for (const FieldSpec& spec : compared_fields()) {
    FieldRow row;
    row.field = spec.name;
    row.spec = spec;
    if (auto it = simulated.find(spec.name); it != simulated.end() && it->is_number()) row.simulated = it->get<double>();
    auto rec = recorded.find(spec.name);
    row.recorded_present = rec != recorded.end();
    if (row.recorded_present) {
      row.recorded = rec->second;
      if (row.recorded == 0)
        row.ratio = row.simulated == 0 ? 1.0 : std::numeric_limits<double>::infinity();
      else
        row.ratio = row.simulated / row.recorded;
      const bool ratio_ok = row.ratio > 0 && std::isfinite(row.ratio) &&
                            std::abs(std::log(row.ratio)) <= spec.max_abs_log_ratio + 1e-12;
      row.within = ratio_ok || std::abs(row.simulated - row.recorded) <= spec.abs_slack;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<EntryFields> field_comparisons(const std::vector<EntryResult>& results) {
  std::vector<EntryFields> out;
  for (const auto& r : results) {
    if (r.entry->recorded_profile.empty() || !r.profile) continue;
    out.push_back({&r, compare_fields(trn::to_json(*r.profile), r.entry->recorded_profile)});
  }
  return out;
}

namespace {

std::string tolerance_text(const FieldSpec& s) {
  std::string t = fmt::format("x{:.3g}", std::exp(s.max_abs_log_ratio));
  if (s.abs_slack > 0) t += fmt::format(" or ±{:g}", s.abs_slack);
  return t;
}

std::string ratio_text(const FieldRow& row) {
  if (!row.recorded_present) return "-";
  if (std::isinf(row.ratio)) return "inf";
  return fmt::format("{:.3f}", row.ratio);
}

}  // namespace

std::string format_fields_text(const std::vector<EntryFields>& fields) {
  std::string out;
  for (const auto& ef : fields) {
    out += fmt::format("\n{} (recorded profile vs simulated)\n", ef.result->entry->id());
    out += fmt::format("  {:<36} {:>16} {:>16} {:>8}  {:<14} {}\n", "field", "simulated", "recorded", "ratio",
                       "tolerance", "");
    for (const auto& row : ef.rows) {
      std::string recorded = row.recorded_present ? fmt::format("{:.6g}", row.recorded) : "not recorded";
      out += fmt::format("  {:<36} {:>16.6g} {:>16} {:>8}  {:<14} {}\n", row.field, row.simulated, recorded,
                         ratio_text(row), tolerance_text(row.spec),
                         !row.recorded_present ? "" : row.within ? "ok" : "OUTSIDE");
    }
  }
  if (fields.empty()) return out;
  // The ratio matrix: one line per field, one column per entry.
  out += fmt::format("\nsimulated / recorded by field\n  {:<36}", "field");
  for (const auto& ef : fields) out += fmt::format(" {:>14}", ef.result->entry->name.substr(0, 14));
  out += "\n";
  for (size_t i = 0; i < fields.front().rows.size(); ++i) {
    out += fmt::format("  {:<36}", fields.front().rows[i].field);
    for (const auto& ef : fields) {
      const FieldRow& row = ef.rows[i];
      out += fmt::format(" {:>14}", ratio_text(row) + (row.recorded_present && !row.within ? "*" : ""));
    }
    out += "\n";
  }
  out += "  (* outside the field's tolerance; - not in the recorded profile)\n";
  return out;
}

nlohmann::json fields_to_json(const std::vector<EntryFields>& fields) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& ef : fields) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : ef.rows) {
      nlohmann::json r = {{"field", row.field}, {"simulated", row.simulated}};
      if (row.recorded_present) {
        r["recorded"] = row.recorded;
        r["ratio"] = std::isfinite(row.ratio) ? nlohmann::json(row.ratio) : nlohmann::json(nullptr);
        r["within_tolerance"] = row.within;
      }
      r["max_abs_log_ratio"] = row.spec.max_abs_log_ratio;
      r["abs_slack"] = row.spec.abs_slack;
      rows.push_back(std::move(r));
    }
    j.push_back({{"id", ef.result->entry->id()}, {"fields", std::move(rows)}});
  }
  return j;
}

}  // namespace fidelity
