#include "agents/builtin/experience.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <vector>

#include <fmt/core.h>

#include "agents/builtin/failure_log.h"
#include "agents/builtin/loopnest_catalogue.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/transform.h"
#include "base/content_hash.h"

namespace agents::builtin {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Keywords an LLM plan uses for each transformation (first match wins, most specific first).
const std::vector<std::pair<const char*, const char*>> kKeywords = {
    {"silu", "fuse_silu"},          {"sigmoid", "fuse_silu"},           {"scale", "fold_into_activation"},
    {"tensor_scalar", "fold_tensor_scalar"}, {"reciprocal", "algebraic_simplify"}, {"divi", "algebraic_simplify"},
    {"psum", "drop_psum_copy"},     {"transpose", "transpose_choice"},  {"hoist", "hoist_invariant"},
    {"invariant", "hoist_invariant"}, {"recompute", "sink_recompute"}, {"interchange", "interchange"},
    {"reorder", "interchange"},     {"split", "split_loop"},            {"fuse", "fuse_loops"},
    {"fusion", "fuse_loops"},       {"tile size", "free_size"},         {"free size", "free_size"},
    {"block size", "free_size"},    {"larger tile", "free_size"},       {"engine", "engine_move"},
};

std::string field(const std::string& text, const std::string& key) {
  auto at = text.find(key + "=");
  if (at == std::string::npos) return "";
  auto start = at + key.size() + 1, end = text.find_first_of(" ;\n", start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// "from=512,value=1024,var=block" -> {from: 512, value: 1024, var: block}; "-" -> {}.
std::map<std::string, std::string> parse_params(const std::string& text) {
  std::map<std::string, std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (auto eq = item.find('='); eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
  return out;
}

// What a site's parameters say about the move, independent of where it is: every parameter but
// the line and the exact sizes, plus the direction of a size change (grow/shrink).
std::map<std::string, std::string> move_features(const std::map<std::string, std::string>& params) {
  std::map<std::string, std::string> f;
  for (const auto& [k, v] : params)
    if (k != "line" && k != "from" && k != "value") f[k] = v;
  auto from = params.find("from"), value = params.find("value");
  if (from != params.end() && value != params.end()) {
    try {
      f["direction"] = std::stoll(value->second) > std::stoll(from->second) ? "grow" : "shrink";
    } catch (const std::exception&) {
      f["value"] = value->second;  // not sizes: compare the values themselves
    }
  } else if (value != params.end()) {
    f["value"] = value->second;
  }
  return f;
}

// Hit-rate prior of memory_site_weight: about one evaluated rewrite in five helps (16 of 110
// in the ablation traces, docs/performance/builtin_agent.md), worth two observations.
constexpr double kPriorHitRate = 0.2, kPriorTrials = 2;
// An outcome stays known while the kernel is within this factor of the latency it was measured at.
constexpr double kStale = 0.9;
// Gain evidence about another statement than the site's (both anchors known).
constexpr double kOtherSite = 0.5;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

}  // namespace

std::string site_anchor(const Site& site) {
  // A loop-nest site names its op by its place in the nest (`anchor=`), the same in every style;
  // its summary speaks the kernel's own names, so it is left out.
  if (site.params.count("anchor")) return base::content_hash({portable_key(site)}).substr(0, 16);
  return base::content_hash({portable_key(site), site.summary}).substr(0, 16);
}

std::optional<ExperienceView> read_experience(const ExperienceItem& item) {
  ExperienceView view;
  view.task = item.task;
  double s = item.speedup > 0 ? item.speedup : 1;
  view.speedup = item.positive ? s : 1 / s;
  if (item.lesson.rfind("builtin:", 0) == 0) {
    view.transform = field(item.lesson, "transform");
    view.symptoms = parse_symptoms(field(item.lesson, "symptoms"));
    view.params = parse_params(field(item.lesson, "params"));
    view.anchor = field(item.lesson, "site");
    view.enabled_by = field(item.lesson, "enabled_by");
    try {
      view.base_ms = std::stod(field(item.lesson, "base_ms"));
    } catch (const std::exception&) {
      view.base_ms = 0;  // older items
    }
    if (find_transform(view.transform) || is_loopnest_transform(view.transform)) return view;
  }
  std::string words = lower(item.plan + " " + item.lesson);
  for (const auto& [keyword, transform] : kKeywords)
    if (words.find(keyword) != std::string::npos) {
      view.transform = transform;
      return view;
    }
  return std::nullopt;
}

std::map<std::string, double> memory_weights(const Memory& memory, const Symptoms& now) {
  std::map<std::string, double> score;
  for (const auto& item : memory.items()) {
    auto view = read_experience(item);
    if (!view) continue;
    double sim = view->symptoms ? similarity(*view->symptoms, now) : 0.5;
    score[view->transform] += sim * std::log(std::clamp(view->speedup, 0.1, 10.0));
  }
  std::map<std::string, double> weights;
  for (const auto& [name, s] : score) weights[name] = std::exp(std::clamp(3 * s, -2.0, 2.0));
  return weights;
}

std::vector<ExperienceView> read_memory(const Memory& memory) {
  std::vector<ExperienceView> out;
  for (const auto& item : memory.items())
    if (auto view = read_experience(item)) out.push_back(std::move(*view));
  return out;
}

double param_match(const ExperienceView& view, const Site& site) {
  if (!view.symptoms) return 0.5;  // an LLM item: the transformation is all we know
  auto a = move_features(view.params), b = move_features(site.params);
  bool partial = false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) partial = true;
    else if (it->second != v) return 0.15;
  }
  for (const auto& [k, v] : b) partial = partial || !a.count(k);
  return partial ? 0.6 : 1.0;
}

double memory_site_weight(const std::vector<ExperienceView>& experience, const Symptoms& now, const Site& site) {
  double score = 0, trials = 0, hits = 0;
  std::string anchor = site_anchor(site);
  for (const auto& view : experience) {
    if (view.transform != site.transform) continue;
    double relevance = (view.symptoms ? similarity(*view.symptoms, now) : 0.5) * param_match(view, site);
    double other_site = view.anchor.empty() || view.anchor == anchor ? 1 : kOtherSite;
    score += other_site * relevance * std::log(std::clamp(view.speedup, 0.1, 10.0));
    trials += relevance;
    if (view.speedup >= kHelped) hits += relevance;
  }
  double rate = std::min(1.0, (hits + kPriorTrials * kPriorHitRate) / ((trials + kPriorTrials) * kPriorHitRate));
  return std::exp(std::clamp(3 * score, -2.0, 2.0)) * rate;
}

bool known_no_gain(const std::vector<ExperienceView>& experience, const Site& site, const std::string& task,
                   double now_ms) {
  std::string anchor = site_anchor(site);
  bool known = false;
  for (const auto& view : experience) {
    if (view.task == task && view.enabled_by == anchor && view.speedup >= kHelped) return false;  // it enables a gain
    if (view.transform != site.transform || view.task != task || view.anchor != anchor) continue;
    if (view.speedup >= kHelped) return false;  // it helped once here: not a known dead end
    known = known || view.base_ms <= 0 || now_ms <= 0 || now_ms >= kStale * view.base_ms;
  }
  return known;
}

std::string line_diff(const std::string& before, const std::string& after, size_t max_lines) {
  auto a = lines_of(before), b = lines_of(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::string out;
  size_t n = 0;
  for (size_t i = head; i < a.size() - tail && n < max_lines; ++i, ++n) out += "- " + a[i] + "\n";
  for (size_t i = head; i < b.size() - tail && n < max_lines; ++i, ++n) out += "+ " + b[i] + "\n";
  return out;
}

std::optional<ExperienceItem> summarize_pair(const RewritePair& pair) {
  auto plan = parse_plan(pair.plan.text);
  if (!plan) return std::nullopt;
  ExperienceItem item;
  item.task = pair.task;
  item.round = pair.round;
  item.positive = pair.positive;
  item.speedup = pair.speedup();
  item.plan = pair.plan.title;
  // The rewrite goes candidate -> rewrite: slow -> fast when positive, fast -> slow otherwise.
  const std::string& from = pair.positive ? pair.slow_code : pair.fast_code;
  const std::string& to = pair.positive ? pair.fast_code : pair.slow_code;
  item.key_change = line_diff(from, to);
  std::string params;
  for (const auto& [k, v] : plan->site.params)
    if (k != "line") params += fmt::format("{}{}={}", params.empty() ? "" : ",", k, v);
  // A two-step plan: the pair is "X enables Y", learnt as Y with X's anchor beside it, so that
  // memory does not hold X (neutral alone) as a dead end.
  std::string enabled_by = plan->enabler ? fmt::format(" enabled_by={}", site_anchor(*plan->enabler)) : "";
  std::string pair_prose = plan->enabler ? fmt::format("{} enables {}: {:.2f}x. ", plan->enabler->transform,
                                                       plan->site.transform, pair.speedup())
                                         : "";
  item.lesson = fmt::format(
      "builtin: transform={} params={} symptoms={} site={}{} base_ms={:.6g} -> {} {:.2f}x. {}{} ({}). {}",
      plan->site.transform, params.empty() ? "-" : params, to_string(plan->symptoms), site_anchor(plan->site),
      enabled_by, pair.positive ? pair.slow_latency_ms : pair.fast_latency_ms,
      pair.positive ? "speedup" : "slowdown", pair.speedup(), pair_prose, plan->site.summary,
      site_description(plan->site),
      pair.speedup() < kHelped ? "Little effect on kernels with these symptoms."
      : pair.positive          ? "Worth trying on kernels with these symptoms."
                               : "Avoid it on kernels with these symptoms.");
  item.slow_code = pair.slow_code;
  item.fast_code = pair.fast_code;
  return item;
}

}  // namespace agents::builtin
