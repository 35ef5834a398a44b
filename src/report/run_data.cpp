#include "report/run_data.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/core.h>

#include "report/live_report.h"
#include "report/timeline_summary.h"
#include "search/run_output.h"
#include "search/search_state.h"
#include "search/task_loader.h"
#include "store/run_store.h"

namespace report {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path, size_t limit = std::numeric_limits<size_t>::max()) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text;
  text.resize(limit == std::numeric_limits<size_t>::max() ? 0 : limit);
  if (limit != std::numeric_limits<size_t>::max()) {
    in.read(text.data(), static_cast<std::streamsize>(limit));
    text.resize(static_cast<size_t>(in.gcount()));
    return text;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json parse_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

// The stage of the evaluation's typed failure ("compare", "run_kernel", ...), when the evaluation
// recorded one (docs/evaluation.md "Statuses"); "" for older stores and for evaluations without.
std::string failure_stage(const std::string& evaluation_json) {
  nlohmann::json e = parse_or_null(evaluation_json);
  if (!e.is_object()) return "";
  auto f = e.find("failure");
  if (f == e.end() || !f->is_object()) return "";
  auto stage = f->find("stage");
  return stage != f->end() && stage->is_string() ? stage->get<std::string>() : "";
}

std::string now_utc() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return stamp;
}

// Model calls grouped by (agent, model): calls, failures, tokens, USD, mean latency.
nlohmann::json model_usage(store::RunStore& store, int64_t run_id) {
  struct Sum {
    int64_t calls = 0, failed = 0, input_tokens = 0, output_tokens = 0;
    double cost_usd = 0, latency_s = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums;
  for (const auto& call : store.llm_calls(run_id)) {
    if (call.error_kind == "budget") continue;  // refused by the budget gate: never sent, not counted
    Sum& s = sums[{call.agent, call.model}];
    s.calls++;
    if (!call.error.empty()) s.failed++;
    s.input_tokens += call.input_tokens;
    s.output_tokens += call.output_tokens;
    s.cost_usd += call.cost_usd;
    s.latency_s += call.latency_s;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, s] : sums)
    out.push_back({{"agent", key.first}, {"model", key.second}, {"calls", s.calls}, {"failed", s.failed},
                   {"input_tokens", s.input_tokens}, {"output_tokens", s.output_tokens}, {"cost_usd", s.cost_usd},
                   {"mean_latency_s", s.calls ? s.latency_s / static_cast<double>(s.calls) : 0.0}});
  return out;
}

// The summary document and each task's best kernel text: summary.json and best/ for a run that
// ended, the last checkpoint for one still going (or killed before it could write summary.json).
struct Results {
  nlohmann::json summary;
  std::map<std::string, std::string> best_text;  // task -> code
};

Results read_results(const fs::path& dir, store::RunStore& store, const store::RunRecord& run, size_t capacity) {
  Results r;
  fs::path summary_path = dir / "summary.json";
  bool ended = run.status != "running" && fs::exists(summary_path);
  if (!ended) {
    if (auto checkpoint = store.last_checkpoint(run.id)) {
      search::RunState state = search::deserialize_state(checkpoint->state_json, capacity);
      r.summary = search::run_summary(state, run.name);
      for (const auto& t : search::task_results(state)) r.best_text[t.task] = t.best_code;
      return r;
    }
  }
  r.summary = parse_or_null(read_file(summary_path));
  if (!r.summary.is_object()) r.summary = {{"run", run.name}, {"status", run.status}, {"tasks", nlohmann::json::array()}};
  for (const auto& t : r.summary.value("tasks", nlohmann::json::array())) {
    if (!t.is_object()) continue;
    std::string file = t.value("kernel_file_name", "");
    if (!file.empty()) r.best_text[t.value("task", "")] = read_file(dir / "best" / file);
  }
  return r;
}

// The nearest ancestor's latency that is known (what a plan's kernel is measured against).
double reference_latency(const TaskHistory& h, const KernelEntry& k) {
  std::set<int64_t> seen;
  for (const KernelEntry* p = h.find(k.parent); p && seen.insert(p->id).second; p = h.find(p->parent))
    if (is_correct(*p)) return *p->latency_ms;
  return 0;
}

nlohmann::json curve_json(const TaskHistory& h) {
  // Compact rows [n, kernel id, status, latency or null, best so far]: a run has thousands.
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : best_so_far(h))
    rows.push_back({p.n, p.kernel, p.status, p.latency_ms ? nlohmann::json(*p.latency_ms) : nlohmann::json(nullptr),
                    p.best_ms});
  return rows;
}

nlohmann::json profile_of(const TaskHistory& h, int64_t id) {
  const KernelEntry* k = h.find(id);
  return k ? parse_or_null(k->profile_json) : nlohmann::json(nullptr);
}

// A pointer into `summary` itself (value() would return a copy).
const nlohmann::json* find_task(const nlohmann::json& summary, const std::string& name) {
  auto tasks = summary.find("tasks");
  if (tasks == summary.end() || !tasks->is_array()) return nullptr;
  for (const auto& t : *tasks)
    if (t.is_object() && t.value("task", "") == name) return &t;
  return nullptr;
}

}  // namespace

std::vector<TaskHistory> load_histories(store::RunStore& store, int64_t run_id) {
  std::vector<TaskHistory> out;
  std::map<std::string, size_t> index;
  auto history = [&](const std::string& task) -> TaskHistory& {
    auto [it, added] = index.emplace(task, out.size());
    if (added) out.push_back(TaskHistory{task, {}, {}, {}});
    return out[it->second];
  };
  for (const auto& k : store.kernels(run_id)) {
    KernelEntry e;
    e.id = k.id;
    e.parent = k.parent_kernel_id;
    e.plan = k.plan_id;
    e.round = k.round;
    e.text = k.text;
    if (auto ev = store.find_evaluation(k.id)) {
      e.evaluated = true;
      e.eval_order = ev->id;
      e.status = ev->status;
      e.diagnostics = ev->diagnostics;
      if (e.status != "ok") e.failure_stage = failure_stage(ev->evaluation_json);
      e.latency_ms = ev->latency_ms;
      e.profile_json = ev->profile_json;
    }
    history(k.task).kernels.push_back(std::move(e));
  }
  std::set<int> rounds = {0};
  for (const auto& r : store.rounds(run_id)) rounds.insert(r.round);
  for (int round : rounds) {
    for (const auto& c : store.beam(run_id, round)) {
      auto& members = history(c.task).beams[round];
      if (members.size() <= static_cast<size_t>(c.rank)) members.resize(static_cast<size_t>(c.rank) + 1, 0);
      members[static_cast<size_t>(c.rank)] = c.kernel_id;
    }
    for (const auto& p : store.plans(run_id, round)) history(p.task).plans[p.id] = p.text;
  }
  return out;
}

nlohmann::json memory_usage_json(const std::vector<MemoryEntry>& items, const std::vector<PlanUse>& plans,
                                 size_t capacity) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    // Item i leaves the memory when item i + capacity is added, at the end of that item's round;
    // the plans of that round still saw it.
    int until = i + capacity < items.size() ? items[i + capacity].seq : std::numeric_limits<int>::max();
    std::string title = items[i].item.value("plan", "");
    int offered = 0, reused = 0, kernels = 0, improved = 0;
    for (const auto& p : plans) {
      if (p.seq <= items[i].seq || p.seq > until) continue;
      offered++;
      if (title.empty() || p.title != title) continue;
      reused++;
      kernels += p.kernels;
      improved += p.improved;
    }
    nlohmann::json j = items[i].item;
    j.erase("slow_code");
    j.erase("fast_code");
    j["offered"] = offered;
    j["reused"] = reused;
    j["reused_kernels"] = kernels;
    j["reused_improved"] = improved;
    j["evicted"] = until != std::numeric_limits<int>::max();
    out.push_back(std::move(j));
  }
  return out;
}

std::string reproduce_command(const nlohmann::json& c, const std::string& run_dir) {
  std::string cmd = fmt::format("accelopt optimize --tasks {} --agent {}", c.value("tasks", "?"), c.value("agent", "builtin"));
  auto opt = [&](const char* flag, const std::string& value) {
    if (!value.empty()) cmd += fmt::format(" {} {}", flag, value);
  };
  opt("--config", c.value("config", ""));
  opt("--kernels", c.value("kernels", ""));
  opt("--memory-in", c.value("memory_in", ""));
  if (c.value("arch", "trn1") != "trn1") opt("--arch", c.value("arch", ""));
  if (auto p = c.find("params"); p != c.end() && p->is_object())
    for (const char* key : {"B", "N", "K", "T", "topk", "expn"})
      if (p->contains(key)) cmd += fmt::format(" --{} {}", key, (*p)[key].dump());
  if (auto b = c.find("budgets"); b != c.end() && b->is_object())
    for (const char* key : {"usd", "tokens", "evals", "minutes"})
      if (b->contains(key) && (*b)[key].is_number() && (*b)[key].get<double>() > 0)
        cmd += fmt::format(" --budget-{} {}", key, (*b)[key].dump());
  opt("--check-seeds", c.value("check_seeds", ""));
  if (c.value("seed", uint64_t{0}) != 0) cmd += fmt::format(" --seed {}", c.value("seed", uint64_t{0}));
  cmd += fmt::format(" --out {}", run_dir);
  return cmd;
}

nlohmann::json load_run_data(const std::string& run_dir, const ReportOptions& options) {
  fs::path dir(run_dir);
  fs::path db = dir / "run.db";
  if (!fs::exists(db)) throw std::runtime_error(fmt::format("{}: not a run directory (no run.db)", run_dir));
  store::RunStore store(db.string());
  auto run = store.latest_run();
  if (!run) throw std::runtime_error(fmt::format("{}: the run store holds no run", db.string()));
  nlohmann::json config = parse_or_null(read_file(dir / "config.json"));
  if (!config.is_object()) config = parse_or_null(run->config_json);
  if (!config.is_object()) config = nlohmann::json::object();
  size_t capacity = 16;
  if (config.contains("params") && config["params"].is_object()) capacity = config["params"].value("expn", size_t{16});
  Results results = read_results(dir, store, *run, capacity);
  std::vector<TaskHistory> histories = load_histories(store, run->id);

  size_t code_bytes = 0;
  for (const auto& h : histories)
    for (const auto& k : h.kernels) code_bytes += k.text.size();
  bool with_code = code_bytes <= options.max_code_bytes;

  // Rounds in run order (task order, then round) for the memory's bookkeeping.
  std::vector<std::string> order;
  for (const auto& t : results.summary.value("tasks", nlohmann::json::array()))
    if (t.is_object()) order.push_back(t.value("task", ""));
  for (const auto& h : histories)
    if (std::find(order.begin(), order.end(), h.task) == order.end()) order.push_back(h.task);
  auto seq = [&](const std::string& task, int round) {
    auto it = std::find(order.begin(), order.end(), task);
    return static_cast<int>(it - order.begin()) * 100000 + round;
  };

  nlohmann::json tasks = nlohmann::json::array();
  std::vector<PlanUse> plan_uses;
  std::string arch = config.value("arch", "trn1");
  for (const auto& name : order) {
    auto h = std::find_if(histories.begin(), histories.end(), [&](auto& x) { return x.task == name; });
    const nlohmann::json* summary = find_task(results.summary, name);
    nlohmann::json t = summary ? *summary : nlohmann::json{{"task", name}};
    if (h == histories.end()) {
      tasks.push_back(std::move(t));
      continue;
    }
    int64_t best = best_kernel_id(*h, results.best_text[name]);
    int64_t base = baseline_id(*h);
    t["curve"] = curve_json(*h);
    t["lineage"] = lineage_json(*h, best, with_code);
    t["failures"] = failures_json(*h);
    t["profiles"] = {{"baseline", profile_of(*h, base)}, {"best", profile_of(*h, best)}};
    if (options.timeline && best) {
      const KernelEntry* k = h->find(best);
      std::string trace_path = options.timeline_dir.empty()
                                   ? ""
                                   : (fs::path(options.timeline_dir) / fmt::format("timeline-{}-best.json", name)).string();
      t["timeline"] = best_timeline(config, name, arch, k ? k->text : "", trace_path);
    }
    std::map<int64_t, PlanUse> uses;
    for (const auto& [id, text] : h->plans) uses[id].title = plan_title(text);
    for (const auto& k : h->kernels) {
      if (!k.plan || !uses.count(k.plan)) continue;
      PlanUse& u = uses[k.plan];
      u.seq = seq(name, k.round);
      u.kernels++;
      double ref = reference_latency(*h, k);
      if (is_correct(k) && ref > 0 && *k.latency_ms < ref) u.improved++;
    }
    for (auto& [id, use] : uses) plan_uses.push_back(use);
    tasks.push_back(std::move(t));
  }

  std::vector<MemoryEntry> items;
  for (const auto& m : store.memory_items(run->id)) {
    nlohmann::json item = parse_or_null(m.item_json);
    if (!item.is_object()) continue;
    items.push_back({item, seq(item.value("task", ""), m.round)});
  }

  std::string agents_file = config.value("config", "");
  nlohmann::json run_json = {{"name", run->name},
                             {"dir", fs::absolute(dir).lexically_normal().string()},
                             {"status", results.summary.value("status", run->status)},
                             {"store_status", run->status},
                             {"live", run->status == "running"},
                             {"created_at", run->created_at},
                             {"stop_message", results.summary.value("stop_message", "")},
                             {"elapsed_s", results.summary.value("elapsed_s", 0.0)},
                             {"evaluations", results.summary.value("evaluations", 0)},
                             {"command", reproduce_command(config, run_dir)},
                             {"config", config},
                             {"agents_file", agents_file},
                             {"agents_file_text", agents_file.empty() ? "" : read_file(agents_file, 20000)}};
  return {{"format", "accelopt-report"},
          {"kind", "run"},
          {"generated_at", now_utc()},
          {"run", run_json},
          {"usage", results.summary.value("usage", nlohmann::json::object())},
          {"models", model_usage(store, run->id)},
          {"tasks", tasks},
          {"codes_complete", with_code},
          {"resumes", read_resumes(run_dir)},
          {"memory", {{"capacity", capacity}, {"items", memory_usage_json(items, plan_uses, capacity)}}}};
}

nlohmann::json load_compare_data(const std::vector<std::string>& run_dirs) {
  nlohmann::json runs = nlohmann::json::array();
  ReportOptions light;
  light.timeline = false;
  light.max_code_bytes = 0;
  for (const auto& dir : run_dirs) {
    nlohmann::json data = load_run_data(dir, light);
    for (auto& t : data["tasks"]) {
      t.erase("lineage");  // the comparison draws figures, not kernels
      t.erase("timeline");
    }
    data["memory"].erase("items");
    runs.push_back(std::move(data));
  }
  return {{"format", "accelopt-report"}, {"kind", "compare"}, {"generated_at", now_utc()}, {"runs", runs}};
}

}  // namespace report
