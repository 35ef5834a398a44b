#include "search/search_state.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace search {

std::optional<double> TaskResult::baseline_peak_percent() const {
  if (peak_latency_ms <= 0 || baseline_latency_ms <= 0) return std::nullopt;
  return 100.0 * peak_latency_ms / baseline_latency_ms;
}

std::optional<double> TaskResult::best_peak_percent() const {
  if (peak_latency_ms <= 0 || best_latency_ms <= 0) return std::nullopt;
  return 100.0 * peak_latency_ms / best_latency_ms;
}

std::pair<double, double> TaskResult::speedup_range() const {
  if (speedup_error_low > 0) return {speedup() * speedup_error_low, speedup() * speedup_error_high};
  if (best_latency_high <= 0 || best_latency_low <= 0) return {0, 0};
  return {baseline_latency_low / best_latency_high, baseline_latency_high / best_latency_low};
}

std::string TaskResult::speedup_confidence() const {
  if (best_latency_ms <= 0 || speedup() <= 1) return "";
  if (baseline_latency_low <= 0 || best_latency_high <= 0) return "";
  return speedup_range().first > 1 ? "confirmed" : "unconfirmed";
}

namespace {

nlohmann::json totals_json(const agents::UsageTotals& u) {
  return {{"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens},
          {"cached_input_tokens", u.cached_input_tokens}, {"cost_usd", u.cost_usd},
          {"calls", u.calls}, {"failed_calls", u.failed_calls}, {"replayed_calls", u.replayed_calls}};
}

agents::UsageTotals totals_from_json(const nlohmann::json& j) {
  agents::UsageTotals u;
  u.input_tokens = j.value("input_tokens", int64_t{0});
  u.output_tokens = j.value("output_tokens", int64_t{0});
  u.cached_input_tokens = j.value("cached_input_tokens", int64_t{0});
  u.cost_usd = j.value("cost_usd", 0.0);
  u.calls = j.value("calls", int64_t{0});
  u.failed_calls = j.value("failed_calls", int64_t{0});
  u.replayed_calls = j.value("replayed_calls", int64_t{0});
  return u;
}

nlohmann::json breakdown_json(const std::map<std::string, agents::UsageTotals>& rows) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, totals] : rows) out[name] = totals_json(totals);
  return out;
}

std::map<std::string, agents::UsageTotals> breakdown_from_json(const nlohmann::json& j) {
  std::map<std::string, agents::UsageTotals> rows;
  if (j.is_object())
    for (const auto& [name, totals] : j.items()) rows[name] = totals_from_json(totals);
  return rows;
}

}  // namespace

nlohmann::json to_json(const agents::Usage& u) {
  nlohmann::json j = totals_json(u);
  j["by_agent"] = breakdown_json(u.by_agent);
  j["by_model"] = breakdown_json(u.by_model);
  return j;
}

agents::Usage usage_from_json(const nlohmann::json& j) {
  agents::Usage u;
  static_cast<agents::UsageTotals&>(u) = totals_from_json(j);
  u.by_agent = breakdown_from_json(j.value("by_agent", nlohmann::json::object()));
  u.by_model = breakdown_from_json(j.value("by_model", nlohmann::json::object()));
  return u;
}

nlohmann::json to_json(const RoundStats& s) {
  return {{"task", s.task},
          {"round", s.round},
          {"candidates", s.candidates},
          {"plans", s.plans},
          {"kernels_written", s.kernels_written},
          {"kernels_unparsed", s.kernels_unparsed},
          {"evaluated", s.evaluated},
          {"eval_failed", s.eval_failed},
          {"correct", s.correct},
          {"fixed", s.fixed},
          {"positive_pairs", s.positive_pairs},
          {"negative_pairs", s.negative_pairs},
          {"memory_items", s.memory_items},
          {"best_latency_ms", s.best_latency_ms},
          {"stop", to_string(s.stop)},
          {"stop_message", s.stop_message},
          {"no_plan_reason", s.no_plan_reason},
          {"usage", totals_json(s.usage)},  // cumulative; the breakdown is in the task's and run's usage
          {"evaluations", s.evaluations}};
}

RoundStats round_stats_from_json(const nlohmann::json& j) {
  RoundStats s;
  s.task = j.value("task", "");
  s.round = j.value("round", 0);
  s.candidates = j.value("candidates", 0);
  s.plans = j.value("plans", 0);
  s.kernels_written = j.value("kernels_written", 0);
  s.kernels_unparsed = j.value("kernels_unparsed", 0);
  s.evaluated = j.value("evaluated", 0);
  s.eval_failed = j.value("eval_failed", 0);
  s.correct = j.value("correct", 0);
  s.fixed = j.value("fixed", 0);
  s.positive_pairs = j.value("positive_pairs", 0);
  s.negative_pairs = j.value("negative_pairs", 0);
  s.memory_items = j.value("memory_items", 0);
  s.best_latency_ms = j.value("best_latency_ms", 0.0);
  s.stop = parse_stop_reason(j.value("stop", "none"));
  s.stop_message = j.value("stop_message", "");
  s.no_plan_reason = j.value("no_plan_reason", "");
  if (j.contains("usage")) s.usage = usage_from_json(j["usage"]);
  s.evaluations = j.value("evaluations", int64_t{0});
  return s;
}

nlohmann::json to_json(const TaskResult& r) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& s : r.rounds) rounds.push_back(to_json(s));
  auto optional_number = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"task", r.task},
          {"kernel_file_name", r.kernel_file_name},
          {"error", r.error},
          {"baseline_latency_ms", r.baseline_latency_ms},
          {"best_latency_ms", r.best_latency_ms},
          {"peak_latency_ms", r.peak_latency_ms},
          {"speedup", r.speedup()},
          {"baseline_peak_percent", optional_number(r.baseline_peak_percent())},
          {"best_peak_percent", optional_number(r.best_peak_percent())},
          {"best_id", r.best_id},
          {"best_code", r.best_code},
          {"rounds_done", r.rounds_done},
          {"stop", to_string(r.stop)},
          {"stop_message", r.stop_message},
          {"usage", to_json(r.usage)},
          {"evaluations", r.evaluations},
          {"rounds", rounds},
          {"recheck", r.recheck},
          {"recheck_note", r.recheck_note},
          {"recheck_evaluations", r.recheck_evaluations},
          {"searched_best_latency_ms", r.searched_best_latency_ms},
          {"recheck_rounds", r.recheck_rounds},
          {"baseline_latency_low", r.baseline_latency_low},
          {"baseline_latency_high", r.baseline_latency_high},
          {"best_latency_low", r.best_latency_low},
          {"best_latency_high", r.best_latency_high},
          {"speedup_error_low", r.speedup_error_low},
          {"speedup_error_high", r.speedup_error_high},
          {"speedup_confidence", r.speedup_confidence()},
          {"profiler_baseline_latency_ms", r.profiler_baseline_latency_ms},
          {"profiler_best_latency_ms", r.profiler_best_latency_ms},
          {"profiler_note", r.profiler_note}};
}

TaskResult task_result_from_json(const nlohmann::json& j) {
  TaskResult r;
  r.task = j.value("task", "");
  r.kernel_file_name = j.value("kernel_file_name", "");
  r.error = j.value("error", "");
  r.baseline_latency_ms = j.value("baseline_latency_ms", 0.0);
  r.best_latency_ms = j.value("best_latency_ms", 0.0);
  r.peak_latency_ms = j.value("peak_latency_ms", 0.0);
  r.best_id = j.value("best_id", "");
  r.best_code = j.value("best_code", "");
  r.rounds_done = j.value("rounds_done", 0);
  r.stop = parse_stop_reason(j.value("stop", "none"));
  r.stop_message = j.value("stop_message", "");
  if (j.contains("usage")) r.usage = usage_from_json(j["usage"]);
  r.evaluations = j.value("evaluations", int64_t{0});
  for (const auto& s : j.value("rounds", nlohmann::json::array())) r.rounds.push_back(round_stats_from_json(s));
  r.recheck = j.value("recheck", "");
  r.recheck_note = j.value("recheck_note", "");
  r.recheck_evaluations = j.value("recheck_evaluations", int64_t{0});
  r.searched_best_latency_ms = j.value("searched_best_latency_ms", 0.0);
  r.recheck_rounds = j.value("recheck_rounds", -1);
  r.baseline_latency_low = j.value("baseline_latency_low", 0.0);
  r.baseline_latency_high = j.value("baseline_latency_high", 0.0);
  r.best_latency_low = j.value("best_latency_low", 0.0);
  r.best_latency_high = j.value("best_latency_high", 0.0);
  r.speedup_error_low = j.value("speedup_error_low", 0.0);
  r.speedup_error_high = j.value("speedup_error_high", 0.0);
  r.profiler_baseline_latency_ms = j.value("profiler_baseline_latency_ms", 0.0);
  r.profiler_best_latency_ms = j.value("profiler_best_latency_ms", 0.0);
  r.profiler_note = j.value("profiler_note", "");
  return r;
}

nlohmann::json to_json(const agents::Candidate& c) {
  nlohmann::json j = {{"id", c.id}, {"kernel_text", c.kernel_text}, {"latency_ms", c.latency_ms}};
  j["profile"] = c.profile ? trn::to_json(*c.profile) : nlohmann::json(nullptr);
  return j;
}

agents::Candidate candidate_from_json(const nlohmann::json& j) {
  agents::Candidate c;
  c.id = j.at("id").get<std::string>();
  c.kernel_text = j.at("kernel_text").get<std::string>();
  c.latency_ms = j.at("latency_ms").get<double>();
  if (j.contains("profile") && !j["profile"].is_null()) c.profile = trn::profile_from_json(j["profile"]);
  return c;
}

std::string serialize(const RunState& state) {
  nlohmann::json finished = nlohmann::json::array();
  for (const auto& r : state.finished) finished.push_back(to_json(r));
  nlohmann::json j = {{"format", "accelopt-run-state"},
                      {"version", 1},
                      {"tasks", state.tasks},
                      {"finished", finished},
                      {"memory", to_json(state.memory)},
                      {"usage", to_json(state.usage)},
                      {"evaluations", state.evaluations},
                      {"elapsed_s", state.elapsed_s},
                      {"stop", to_string(state.stop)},
                      {"stop_message", state.stop_message}};
  if (!state.planner_state.is_null()) j["planner_state"] = state.planner_state;
  if (state.current) {
    nlohmann::json beam = nlohmann::json::array();
    for (const auto& c : state.current->beam) beam.push_back(to_json(c));
    nlohmann::json history = nlohmann::json::array();
    for (const auto& c : state.current->history) history.push_back(to_json(c));
    j["current"] = {{"result", to_json(state.current->result)}, {"beam", beam}, {"history", history}};
  }
  return j.dump();
}

RunState deserialize_state(const std::string& text, size_t memory_capacity) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "accelopt-run-state")
    throw std::runtime_error("the run checkpoint is not an accelopt run state");
  try {
    RunState state;
    state.tasks = j.value("tasks", std::vector<std::string>{});
    for (const auto& r : j.value("finished", nlohmann::json::array())) state.finished.push_back(task_result_from_json(r));
    state.memory = agents::memory_from_json(j.at("memory"), memory_capacity);
    state.usage = usage_from_json(j.value("usage", nlohmann::json::object()));
    state.evaluations = j.value("evaluations", int64_t{0});
    state.elapsed_s = j.value("elapsed_s", 0.0);
    state.stop = parse_stop_reason(j.value("stop", "none"));
    state.stop_message = j.value("stop_message", "");
    if (j.contains("planner_state")) state.planner_state = j["planner_state"];
    if (j.contains("current")) {
      TaskProgress progress;
      progress.result = task_result_from_json(j["current"].at("result"));
      for (const auto& c : j["current"].at("beam")) progress.beam.push_back(candidate_from_json(c));
      // Checkpoints from before the re-check existed have no history: the beam is the best known.
      if (j["current"].contains("history"))
        for (const auto& c : j["current"]["history"]) progress.history.push_back(candidate_from_json(c));
      else
        progress.history = progress.beam;
      state.current = std::move(progress);
    }
    return state;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the run checkpoint is damaged: ") + e.what());
  }
}

}  // namespace search
