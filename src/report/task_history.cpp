#include "report/task_history.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace report {

const KernelEntry* TaskHistory::find(int64_t id) const {
  auto it = std::lower_bound(kernels.begin(), kernels.end(), id, [](const KernelEntry& k, int64_t v) { return k.id < v; });
  return it != kernels.end() && it->id == id ? &*it : nullptr;
}

int64_t baseline_id(const TaskHistory& h) {
  auto start = h.beams.find(0);
  if (start != h.beams.end() && !start->second.empty()) return start->second.front();
  for (const auto& k : h.kernels)
    if (k.round < 0 && k.parent == 0) return k.id;
  return 0;
}

std::set<int64_t> recheck_ids(const TaskHistory& h) {
  int64_t base = baseline_id(h);
  std::unordered_map<std::string, int> copies;
  for (const auto& k : h.kernels) copies[k.text]++;
  std::set<int64_t> out;
  for (const auto& k : h.kernels)
    if (k.id != base && k.parent == 0 && k.round < 0 && copies[k.text] > 1) out.insert(k.id);
  return out;
}

bool is_correct(const KernelEntry& k) { return k.status == "ok" && k.latency_ms && *k.latency_ms > 0; }

std::vector<CurvePoint> best_so_far(const TaskHistory& h) {
  std::set<int64_t> rechecks = recheck_ids(h);
  std::vector<const KernelEntry*> order;
  for (const auto& k : h.kernels)
    if (k.evaluated && !rechecks.count(k.id)) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->eval_order < b->eval_order; });
  std::vector<CurvePoint> out;
  double best = 0;
  for (const KernelEntry* k : order) {
    if (is_correct(*k) && (best == 0 || *k->latency_ms < best)) best = *k->latency_ms;
    out.push_back({static_cast<int64_t>(out.size()) + 1, k->id, k->status, k->latency_ms, best});
  }
  return out;
}

std::vector<int64_t> lineage_path(const TaskHistory& h, int64_t kernel) {
  std::vector<int64_t> path;
  std::set<int64_t> seen;  // a malformed store must not loop forever
  for (const KernelEntry* k = h.find(kernel); k && seen.insert(k->id).second; k = h.find(k->parent)) {
    path.push_back(k->id);
    if (k->parent == 0) break;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

int64_t best_kernel_id(const TaskHistory& h, const std::string& best_text) {
  if (!best_text.empty()) {
    std::set<int64_t> rechecks = recheck_ids(h);
    for (const auto& k : h.kernels)
      if (k.text == best_text && !rechecks.count(k.id)) return k.id;
  }
  if (!h.beams.empty() && !h.beams.rbegin()->second.empty()) return h.beams.rbegin()->second.front();
  return baseline_id(h);
}

std::string plan_title(const std::string& plan_text) {
  size_t start = plan_text.find_first_not_of(" \t\r\n#*");
  if (start == std::string::npos) return "";
  size_t end = plan_text.find('\n', start);
  std::string line = plan_text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::string diagnostic_kind(const std::string& diagnostics) {
  std::string first = plan_title(diagnostics);
  std::string out;
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < first.size(); ++i) {
    // A number, not the digits of a name such as rel_l2.
    if (std::isdigit(static_cast<unsigned char>(first[i])) && (i == 0 || !word_char(first[i - 1]))) {
      while (i + 1 < first.size() && (std::isdigit(static_cast<unsigned char>(first[i + 1])) || first[i + 1] == '.')) ++i;
      out += 'N';
    } else {
      out += first[i];
    }
  }
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out;
}

namespace {

// The round a kernel counts for: its own, or the round in progress for a kernel not yet linked.
int display_round(const KernelEntry& k, int running_round) { return k.round >= 0 ? k.round : running_round; }

std::string truncated(const std::string& text, size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit) + "\n...";
}

}  // namespace

nlohmann::json failures_json(const TaskHistory& h, size_t top) {
  int64_t base = baseline_id(h);
  std::set<int64_t> rechecks = recheck_ids(h);
  int last_round = h.beams.empty() ? 0 : h.beams.rbegin()->first;
  std::map<int, std::map<std::string, int>> by_round;
  struct Kind {
    int count = 0;
    std::string example;
  };
  // Grouped by the typed status and failure stage the evaluation recorded, then by the folded
  // first line of the diagnostic (only to count alike messages together, never to decide a status).
  using Key = std::tuple<std::string, std::string, std::string>;  // status, stage, folded text
  std::map<Key, Kind> kinds;
  for (const auto& k : h.kernels) {
    if (!k.evaluated || k.id == base || rechecks.count(k.id)) continue;
    by_round[display_round(k, last_round + 1)][k.status]++;
    if (k.status == "ok") continue;
    Kind& kind = kinds[{k.status, k.failure_stage, diagnostic_kind(k.diagnostics.empty() ? k.status : k.diagnostics)}];
    if (kind.count++ == 0) kind.example = truncated(k.diagnostics, 600);
  }
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& [round, counts] : by_round) rounds.push_back({{"round", round}, {"counts", counts}});
  std::vector<std::pair<Key, Kind>> sorted(kinds.begin(), kinds.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second.count > b.second.count; });
  if (sorted.size() > top) sorted.resize(top);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [key, kind] : sorted) {
    const auto& [status, stage, text] = key;
    list.push_back({{"status", status}, {"stage", stage}, {"text", text}, {"count", kind.count}, {"example", kind.example}});
  }
  return {{"rounds", rounds}, {"top", list}};
}

nlohmann::json lineage_json(const TaskHistory& h, int64_t best, bool with_code) {
  int64_t base = baseline_id(h);
  std::set<int64_t> rechecks = recheck_ids(h);
  std::map<int64_t, std::vector<int>> beam_rounds;
  for (const auto& [round, members] : h.beams)
    for (int64_t id : members) beam_rounds[id].push_back(round);
  std::set<int64_t> nodes;
  for (const auto& [id, rounds] : beam_rounds)
    for (int64_t p : lineage_path(h, id)) nodes.insert(p);
  std::vector<int64_t> best_path = lineage_path(h, best);
  nodes.insert(best_path.begin(), best_path.end());
  if (base) nodes.insert(base);
  std::set<int64_t> on_path(best_path.begin(), best_path.end());

  std::map<int64_t, std::vector<const KernelEntry*>> children;
  for (const auto& k : h.kernels)
    if (k.parent) children[k.parent].push_back(&k);
  const KernelEntry* base_kernel = h.find(base);
  double base_ms = base_kernel && base_kernel->latency_ms ? *base_kernel->latency_ms : 0;
  // Latency of the nearest ancestor that has one: what a plan's kernel is compared with (a fixer's
  // version descends from a failed draft).
  auto reference_ms = [&](const KernelEntry& k) -> double {
    std::set<int64_t> seen;
    for (const KernelEntry* p = h.find(k.parent); p && seen.insert(p->id).second; p = h.find(p->parent))
      if (is_correct(*p)) return *p->latency_ms;
    return 0;
  };
  auto describe = [&](const KernelEntry& k) {
    nlohmann::json j = {{"id", k.id}, {"parent", k.parent}, {"round", k.round}, {"status", k.status}};
    j["latency_ms"] = k.latency_ms ? nlohmann::json(*k.latency_ms) : nlohmann::json(nullptr);
    auto plan = h.plans.find(k.plan);
    j["plan"] = plan == h.plans.end() ? "" : plan_title(plan->second);
    double ref = reference_ms(k);
    j["speedup_vs_parent"] = is_correct(k) && ref > 0 ? nlohmann::json(ref / *k.latency_ms) : nlohmann::json(nullptr);
    j["speedup_vs_baseline"] =
        is_correct(k) && base_ms > 0 ? nlohmann::json(base_ms / *k.latency_ms) : nlohmann::json(nullptr);
    if (!k.evaluated) j["status"] = "not_evaluated";
    return j;
  };

  nlohmann::json out_nodes = nlohmann::json::array();
  nlohmann::json codes = nlohmann::json::object();
  for (int64_t id : nodes) {
    const KernelEntry* k = h.find(id);
    if (!k) continue;
    nlohmann::json node = describe(*k);
    auto plan = h.plans.find(k->plan);
    node["plan_text"] = plan == h.plans.end() ? "" : plan->second;
    node["diagnostics"] = truncated(k->diagnostics, 2000);
    node["beam_rounds"] = beam_rounds.count(id) ? beam_rounds[id] : std::vector<int>{};
    node["on_best_path"] = on_path.count(id) > 0;
    node["is_baseline"] = id == base;
    nlohmann::json kids = nlohmann::json::array();
    for (const KernelEntry* c : children[id]) {
      nlohmann::json child = describe(*c);
      child["in_tree"] = nodes.count(c->id) > 0;
      child["diagnostic"] = c->status == "ok" ? "" : diagnostic_kind(c->diagnostics);
      kids.push_back(std::move(child));
    }
    node["children"] = std::move(kids);
    out_nodes.push_back(std::move(node));
    codes[std::to_string(id)] = k->text;
  }
  if (with_code)
    for (const auto& k : h.kernels)
      if (!rechecks.count(k.id)) codes[std::to_string(k.id)] = k.text;
  return {{"nodes", out_nodes}, {"best", best}, {"baseline", base}, {"codes", codes}};
}

}  // namespace report
