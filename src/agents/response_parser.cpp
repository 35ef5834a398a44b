#include "agents/response_parser.h"

#include <cctype>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace agents {

namespace {

struct Fence {
  std::string label, body;
};

std::string trim(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

bool is_fence_line(const std::string& line) { return trim(line).rfind("```", 0) == 0; }

// Closed fenced blocks in order; an opening fence without a closing one is dropped.
std::vector<Fence> fenced_blocks(const std::string& text) {
  std::vector<Fence> fences;
  std::optional<Fence> open;
  for (const auto& line : split_lines(text)) {
    if (!is_fence_line(line)) {
      if (open) open->body += line + "\n";
      continue;
    }
    if (open) {
      fences.push_back(std::move(*open));
      open.reset();
    } else {
      open = Fence{lower(trim(trim(line).substr(3))), ""};
    }
  }
  return fences;
}

std::optional<nlohmann::json> find_json(const std::string& text, bool want_array) {
  auto accept = [&](const std::string& s) -> std::optional<nlohmann::json> {
    auto j = nlohmann::json::parse(trim(s), nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    if (want_array ? j.is_array() : j.is_object()) return j;
    return std::nullopt;
  };
  if (auto j = accept(text)) return j;
  for (const auto& fence : fenced_blocks(text))
    if (auto j = accept(fence.body)) return j;
  return std::nullopt;
}

std::string json_string(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

std::optional<Plan> plan_from_json(const nlohmann::json& item) {
  Plan plan;
  if (item.is_string()) {
    plan.text = trim(item.get<std::string>());
  } else if (item.is_object()) {
    plan.title = trim(json_string(item, {"title", "name"}));
    plan.text = trim(json_string(item, {"plan", "description", "text", "details"}));
    if (plan.text.empty()) plan.text = plan.title;
  }
  if (plan.text.empty()) return std::nullopt;
  if (plan.title.empty()) plan.title = plan.text.substr(0, plan.text.find('\n'));
  return plan;
}

// "1. x", "1) x", "Plan 1: x", "**Plan 1**: x", "- x", "* x" -> the rest of the line.
std::optional<std::string> list_item(const std::string& line) {
  static const std::regex item_re(
      R"(^\s*(?:\*\*)?(?:(?:plan|optimization)\s*#?\s*\d+\s*(?:\*\*)?\s*[:.)-]|\d+\s*[.)]|[-*])\s*(?:\*\*)?\s*(.*)$)",
      std::regex::icase);
  std::smatch m;
  if (!std::regex_match(line, m, item_re)) return std::nullopt;
  return m[1].str();
}

std::vector<Plan> plans_from_list(const std::string& text) {
  std::vector<Plan> plans;
  std::string current;
  bool in_item = false;
  auto flush = [&] {
    if (in_item && !trim(current).empty()) {
      std::string body = trim(current);
      plans.push_back({body.substr(0, body.find('\n')), body});
    }
    current.clear();
  };
  for (const auto& line : split_lines(text)) {
    // Indented bullets continue the current item (sub-points of a plan).
    bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    auto item = list_item(line);
    if (item && !(in_item && indented)) {
      flush();
      current = *item + "\n";
      in_item = true;
    } else if (in_item) {
      current += line + "\n";
    }
  }
  flush();
  return plans;
}

std::string strip_markup(std::string s) {
  s = trim(s);
  while (!s.empty() && (s.front() == '*' || s.front() == '#')) s.erase(0, 1);
  return trim(s);
}

}  // namespace

std::vector<Plan> parse_plans(const std::string& text, size_t max_plans) {
  std::vector<Plan> plans;
  if (auto j = find_json(text, /*want_array=*/true)) {
    for (const auto& item : *j)
      if (auto plan = plan_from_json(item)) plans.push_back(std::move(*plan));
  } else {
    plans = plans_from_list(text);
  }
  for (auto& plan : plans) plan.title = strip_markup(plan.title);
  if (plans.size() > max_plans) plans.resize(max_plans);
  return plans;
}

std::optional<std::string> extract_code(const std::string& text) {
  std::optional<std::string> unlabelled;
  std::optional<std::string> labelled;
  for (auto& fence : fenced_blocks(text)) {
    if (trim(fence.body).empty()) continue;
    if (fence.label == "python" || fence.label == "py" || fence.label == "python3")
      labelled = fence.body;
    else if (fence.label.empty())
      unlabelled = fence.body;
  }
  if (labelled) return labelled;
  return unlabelled;
}

std::optional<Summary> parse_summary(const std::string& text) {
  if (auto j = find_json(text, /*want_array=*/false)) {
    Summary s{trim(json_string(*j, {"key_change", "change"})), trim(json_string(*j, {"lesson", "general_lesson"}))};
    if (!s.lesson.empty()) return s;
  }
  static const std::regex key_re(R"(^\W*key\s+(?:code\s+)?change\W*:[\s*_]*(.*)$)", std::regex::icase);
  static const std::regex lesson_re(R"(^\W*(?:general\s+)?lesson\W*:[\s*_]*(.*)$)", std::regex::icase);
  Summary s;
  std::string* section = nullptr;
  for (const auto& line : split_lines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, key_re)) {
      section = &s.key_change;
      *section = m[1].str() + "\n";
    } else if (std::regex_match(line, m, lesson_re)) {
      section = &s.lesson;
      *section = m[1].str() + "\n";
    } else if (section) {
      *section += line + "\n";
    }
  }
  s.key_change = trim(s.key_change);
  s.lesson = trim(s.lesson);
  if (s.lesson.empty()) return std::nullopt;
  return s;
}

}  // namespace agents
