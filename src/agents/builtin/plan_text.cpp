#include "agents/builtin/plan_text.h"

#include <map>
#include <sstream>

#include <fmt/core.h>

namespace agents::builtin {

namespace {

std::string params_line(const Site& site) {
  std::string out;
  for (const auto& [k, v] : site.params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  return out;
}

std::string after(const std::string& line, const std::string& prefix) {
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : std::string();
}

// "k=v k=v" -> params; false on a word without '='.
bool read_params(const std::string& text, std::map<std::string, std::string>& params) {
  std::stringstream words(text);
  std::string word;
  while (words >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    params[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return true;
}

}  // namespace

Plan make_two_step_plan(const Site& enabler, const Site& site, const Symptoms& symptoms, const std::string& rationale) {
  Plan plan;
  plan.title = fmt::format("[builtin] {} enables {}: {}", enabler.transform, site.transform, site.summary);
  plan.text = fmt::format(
      "Transformation: {}\nParameters: {}\nEnabled by: {}\nEnabler parameters: {}\nSymptoms: {}\n\n"
      "Change: {}.\nFirst: {} (offers this site, which the kernel does not).\nWhy: {}\n",
      site.transform, params_line(site), enabler.transform, params_line(enabler), to_string(symptoms), site.summary,
      enabler.summary, rationale);
  return plan;
}

Plan make_plan(const Site& site, const Symptoms& symptoms, const std::string& rationale) {
  Plan plan;
  plan.title = fmt::format("[builtin] {}: {}", site.transform, site.summary);
  plan.text = fmt::format(
      "Transformation: {}\nParameters: {}\nSymptoms: {}\n\nChange: {}.\nWhy: {}\n", site.transform, params_line(site),
      to_string(symptoms), site.summary, rationale);
  return plan;
}

std::optional<ParsedPlan> parse_plan(const std::string& text) {
  ParsedPlan parsed;
  bool have_transform = false, have_params = false;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (auto t = after(line, "Transformation: "); !t.empty()) parsed.site.transform = t, have_transform = true;
    if (line.rfind("Parameters:", 0) == 0) {
      have_params = true;
      if (!read_params(line.substr(11), parsed.site.params)) return std::nullopt;
    }
    if (auto t = after(line, "Enabled by: "); !t.empty()) {
      if (!parsed.enabler) parsed.enabler = Site{};
      parsed.enabler->transform = t;
    }
    if (auto p = after(line, "Enabler parameters: "); !p.empty()) {
      if (!parsed.enabler) parsed.enabler = Site{};
      if (!read_params(p, parsed.enabler->params)) return std::nullopt;
    }
    if (auto s = after(line, "Symptoms: "); !s.empty()) parsed.symptoms = parse_symptoms(s);
    if (auto c = after(line, "Change: "); !c.empty()) {
      parsed.site.summary = c;
      if (!parsed.site.summary.empty() && parsed.site.summary.back() == '.') parsed.site.summary.pop_back();
    }
  }
  if (!have_transform || !have_params || !parsed.site.params.count("line")) return std::nullopt;
  if (parsed.enabler && (parsed.enabler->transform.empty() || !parsed.enabler->params.count("line"))) return std::nullopt;
  return parsed;
}

}  // namespace agents::builtin
