#include "search/run_output.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/plural.h"

namespace search {

namespace fs = std::filesystem;

namespace {

std::string run_status(const RunState& state) {
  auto results = task_results(state);
  bool all_failed = !results.empty() && std::all_of(results.begin(), results.end(), [](const auto& r) { return !r.error.empty(); });
  if (all_failed && !state.current) return "failed";
  if (state.stop == StopReason::AllCallsFailed || state.stop == StopReason::Cancelled) return "stopped";
  if (is_budget_stop(state.stop)) return "budget_stop";
  if (state.current || state.finished.size() < state.tasks.size()) return "incomplete";
  return "finished";
}

std::string percent(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:.1f}%", v.get<double>()) : "-"; }

std::string latency(double ms) { return ms > 0 ? fmt::format("{:.4f}", ms) : "-"; }

// The re-check column: "-" when it did not run (interrupted, or a summary from before it existed).
std::string recheck_cell(const std::string& status) {
  if (status == "failed") return "FAILED";
  return status.empty() ? "-" : status;
}

// The spending of `usage` broken down by agent and by model (summary.json's usage.by_agent and
// usage.by_model); "" when the run called no model.
std::string spending_table(const nlohmann::json& usage) {
  std::string out;
  for (const char* breakdown : {"by_agent", "by_model"}) {
    auto rows = usage.value(breakdown, nlohmann::json::object());
    if (rows.empty()) continue;
    if (out.empty())
      out = fmt::format("{:<28} {:>7} {:>7} {:>12} {:>12} {:>12} {:>10}\n", "spending", "calls", "failed", "input tok",
                        "cached tok", "output tok", "cost USD");
    for (const auto& [name, row] : rows.items())
      out += fmt::format("{:<28} {:>7} {:>7} {:>12} {:>12} {:>12} {:>10.4f}\n",
                         fmt::format("{} {}", std::string(breakdown) == "by_agent" ? "agent" : "model", name),
                         row.value("calls", 0), row.value("failed_calls", 0), row.value("input_tokens", 0),
                         row.value("cached_input_tokens", 0), row.value("output_tokens", 0), row.value("cost_usd", 0.0));
  }
  return out;
}

// optimize --confirm-with-profiler: the simulated and the profiler's numbers side by side.
std::string profiler_line(const nlohmann::json& t) {
  double base = t.value("profiler_baseline_latency_ms", 0.0), best = t.value("profiler_best_latency_ms", 0.0);
  std::string note = t.value("profiler_note", "");
  if (base <= 0 && best <= 0 && note.empty()) return "";
  std::string line = fmt::format("{}: profiler: baseline {} ms (simulated {}), best {} ms (simulated {})",
                                 t.value("task", "?"), latency(base), latency(t.value("baseline_latency_ms", 0.0)),
                                 latency(best), latency(t.value("best_latency_ms", 0.0)));
  if (base > 0 && best > 0)
    line += fmt::format(", speedup {:.3f}x on the profiler vs {:.3f}x simulated", base / best, t.value("speedup", 0.0));
  if (!note.empty()) line += "; " + note.substr(0, note.find('\n'));
  return line + "\n";
}

// Why a speedup is unconfirmed, by the rule TaskResult::speedup_confidence applied.
std::string unconfirmed_note(const nlohmann::json& t) {
  std::string task = t.value("task", "?");
  double speedup = t.value("speedup", 0.0), low = t.value("speedup_error_low", 0.0);
  if (low > 0)
    return fmt::format("{}: unconfirmed: the {:.3f}x speedup is inside the simulator's error on speedups between "
                       "versions of one kernel (the device's speedup may be {:.3f}-{:.3f}x); confirm on hardware "
                       "(--confirm-with-profiler)\n",
                       task, speedup, speedup * low, speedup * t.value("speedup_error_high", 0.0));
  return fmt::format("{}: unconfirmed: the {:.3f}x speedup is inside the simulator's error band (baseline "
                     "{:.4f}-{:.4f} ms, best {:.4f}-{:.4f} ms on a device); confirm on hardware "
                     "(--confirm-with-profiler)\n",
                     task, speedup, t.value("baseline_latency_low", 0.0), t.value("baseline_latency_high", 0.0),
                     t.value("best_latency_low", 0.0), t.value("best_latency_high", 0.0));
}

}  // namespace

std::vector<TaskResult> task_results(const RunState& state) {
  std::vector<TaskResult> results = state.finished;
  if (state.current) results.push_back(state.current->result);
  return results;
}

nlohmann::json run_summary(const RunState& state, const std::string& run_name) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& r : task_results(state)) {
    nlohmann::json j = to_json(r);
    j.erase("best_code");  // the code is in best/; the summary stays readable
    tasks.push_back(j);
  }
  return {{"format", "accelopt-run-summary"},
          {"run", run_name},
          {"status", run_status(state)},
          {"stop", to_string(state.stop)},
          {"stop_message", state.stop_message},
          {"tasks", tasks},
          {"usage", to_json(state.usage)},
          {"evaluations", state.evaluations},
          {"elapsed_s", state.elapsed_s},
          {"memory_items", state.memory.size()}};
}

void write_run_outputs(const std::string& run_dir, const RunState& state, const std::string& run_name) {
  fs::create_directories(fs::path(run_dir) / "best");
  for (const auto& r : task_results(state)) {
    if (r.best_code.empty() || r.kernel_file_name.empty()) continue;
    base::write_file_atomic((fs::path(run_dir) / "best" / r.kernel_file_name).string(), r.best_code);
  }
  base::write_file_atomic((fs::path(run_dir) / "summary.json").string(), run_summary(state, run_name).dump(2) + "\n");
  base::write_file_atomic((fs::path(run_dir) / "memory.json").string(), agents::to_json(state.memory).dump(2) + "\n");
}

std::string format_summary(const nlohmann::json& summary) {
  std::string out = fmt::format("run {}: {}", summary.value("run", "?"), summary.value("status", "?"));
  std::string message = summary.value("stop_message", "");
  if (!message.empty()) out += fmt::format(" ({})", message);
  out += "\n";
  out += fmt::format("{:<28} {:>12} {:>12} {:>8} {:>11} {:>9} {:>9} {:>7} {:>10} {:>9}\n", "task", "baseline ms",
                     "best ms", "speedup", "sim band", "peak bef", "peak aft", "rounds", "cost USD", "rechecked");
  std::string notes;
  for (const auto& t : summary.value("tasks", nlohmann::json::array())) {
    std::string error = t.value("error", "");
    if (!error.empty()) {
      out += fmt::format("{:<28} error: {}\n", t.value("task", "?"), error.substr(0, error.find('\n')));
      continue;
    }
    std::string confidence = t.value("speedup_confidence", "");
    out += fmt::format("{:<28} {:>12} {:>12} {:>7.3f}x {:>11} {:>9} {:>9} {:>7} {:>10.4f} {:>9}\n", t.value("task", "?"),
                       latency(t.value("baseline_latency_ms", 0.0)), latency(t.value("best_latency_ms", 0.0)),
                       t.value("speedup", 0.0), confidence.empty() ? "-" : confidence,
                       percent(t.value("baseline_peak_percent", nlohmann::json())),
                       percent(t.value("best_peak_percent", nlohmann::json())), t.value("rounds_done", 0),
                       t.value("usage", nlohmann::json::object()).value("cost_usd", 0.0),
                       recheck_cell(t.value("recheck", "")));
    if (confidence == "unconfirmed") notes += unconfirmed_note(t);
    if (std::string stop = t.value("stop_message", ""); !stop.empty())
      notes += fmt::format("{}: stopped after round {}: {}\n", t.value("task", "?"), t.value("rounds_done", 0), stop);
    notes += profiler_line(t);
    std::string recheck = t.value("recheck", "");
    if (recheck == "fallback" || recheck == "failed")
      notes += fmt::format("{}: the search's best ({} ms) failed the five-seed re-check; {}\n", t.value("task", "?"),
                           latency(t.value("searched_best_latency_ms", 0.0)),
                           recheck == "fallback" ? "the best kernel that passes is reported" : "no kernel passed it");
  }
  out += notes;
  auto usage = summary.value("usage", nlohmann::json::object());
  int64_t rechecks = 0;
  for (const auto& t : summary.value("tasks", nlohmann::json::array())) rechecks += t.value("recheck_evaluations", int64_t{0});
  int64_t cached = usage.value("cached_input_tokens", int64_t{0});
  out += fmt::format("total: {} ({} failed), {} input{} + {} output tokens, {:.4f} USD, {}{}, {:.1f} s\n",
                     base::count_of(usage.value("calls", int64_t{0}), "model call"), usage.value("failed_calls", 0),
                     usage.value("input_tokens", 0), cached ? fmt::format(" ({} cached)", cached) : "",
                     usage.value("output_tokens", 0), usage.value("cost_usd", 0.0),
                     base::count_of(summary.value("evaluations", int64_t{0}), "evaluation"),
                     rechecks ? fmt::format(" (+{})", base::count_of(rechecks, "five-seed re-check")) : "",
                     summary.value("elapsed_s", 0.0));
  out += spending_table(usage);
  return out;
}

}  // namespace search
