#include "bench/report.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace bench {

std::optional<double> BenchRow::percent_of_peak() const {
  if (!correct || !peak || !profile || profile->latency <= 0) return std::nullopt;
  return peak->latency_ms / profile->latency * 100.0;
}

std::optional<double> BenchReport::geomean_percent() const {
  double log_sum = 0;
  int count = 0;
  for (const auto& row : rows) {
    if (auto p = row.percent_of_peak()) {
      log_sum += std::log(*p);
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return std::exp(log_sum / count);
}

namespace {

std::string fmt_opt(std::optional<double> v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

}  // namespace

std::string render_table(const BenchReport& report) {
  std::string out = fmt::format("{}\n", report.peak_description);
  out += fmt::format("{:<24} {:<22} {:>12} {:>12} {:>7} {:>8}  {}\n", "task", "config", "latency_ms", "peak_ms",
                     "bound", "%peak", "status");
  for (const auto& row : report.rows) {
    std::optional<double> latency;
    if (row.profile) latency = row.latency_ms();
    std::optional<double> peak_ms;
    if (row.peak) peak_ms = row.peak->latency_ms;
    out += fmt::format("{:<24} {:<22} {:>12} {:>12} {:>7} {:>8}  {}\n", row.task, row.config,
                       fmt_opt(latency, "{:.4f}"), fmt_opt(peak_ms, "{:.4f}"), row.peak ? row.peak->bound : "-",
                       fmt_opt(row.percent_of_peak(), "{:.1f}"), row.status);
  }
  out += fmt::format("geomean percent of peak: {} ({} of {} tasks correct)\n",
                     fmt_opt(report.geomean_percent(), "{:.1f}"),
                     std::count_if(report.rows.begin(), report.rows.end(), [](auto& r) { return r.correct; }),
                     report.rows.size());
  return out;
}

std::string render_csv(const BenchReport& report) {
  std::string out = "task,config,kernel,status,correct,latency_ms,peak_latency_ms,bound,percent_of_peak\n";
  for (const auto& row : report.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", row.task, row.config, row.kernel, row.status,
                       row.correct ? "true" : "false", row.profile ? fmt::format("{:.6f}", row.latency_ms()) : "",
                       row.peak ? fmt::format("{:.6f}", row.peak->latency_ms) : "", row.peak ? row.peak->bound : "",
                       fmt_opt(row.percent_of_peak(), "{:.3f}") == "-" ? "" : fmt_opt(row.percent_of_peak(), "{:.3f}"));
  }
  return out;
}

nlohmann::json to_json(const BenchReport& report) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& row : report.rows) {
    nlohmann::json t = {{"task", row.task},       {"config", row.config},   {"kernel", row.kernel},
                        {"status", row.status},   {"correct", row.correct}, {"rel_l2", row.rel_l2},
                        {"seconds", row.seconds}, {"diagnostics", row.diagnostics}};
    t["latency"] = row.profile ? nlohmann::json(row.latency_ms()) : nlohmann::json(nullptr);
    t["peak_latency"] = row.peak ? nlohmann::json(row.peak->latency_ms) : nlohmann::json(nullptr);
    t["bound"] = row.peak ? nlohmann::json(row.peak->bound) : nlohmann::json(nullptr);
    auto pct = row.percent_of_peak();
    t["percent_of_peak"] = pct ? nlohmann::json(*pct) : nlohmann::json(nullptr);
    t["profile"] = row.profile ? trn::to_json(*row.profile) : nlohmann::json(nullptr);
    tasks.push_back(std::move(t));
  }
  auto geo = report.geomean_percent();
  return {{"arch", report.arch},
          {"peak_constants", report.peak_description},
          {"tasks", tasks},
          {"errors", report.errors},
          {"geomean_percent_of_peak", geo ? nlohmann::json(*geo) : nlohmann::json(nullptr)}};
}

}  // namespace bench
