// Parsing model answers into typed values. Parsers never throw on bad text: they return an empty
// result with the reason, and the caller records the answer as a failed sample with the raw text.
// Examples: tests/unit/agents/response_parser_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agents/types.h"

namespace agents {

// Plans from a planner answer. Accepted shapes, tried in order: a JSON array (bare or in a fenced
// block) of strings or of {"title", "plan"|"description"|"text"} objects; a numbered or bulleted
// list ("1.", "1)", "Plan 1:", "- ", "* "), where lines up to the next item belong to the item.
// At most `max_plans` are returned; empty plans are dropped.
std::vector<Plan> parse_plans(const std::string& text, size_t max_plans);

// The code of the last fenced block labelled python/py (or unlabelled when no labelled block
// exists). An unterminated fence (a truncated answer) does not count. nullopt: no code found.
std::optional<std::string> extract_code(const std::string& text);

// The summarizer's answer: {"key_change", "lesson"} as JSON (bare or fenced), or the sections
// "Key change:" and "Lesson:" in text. nullopt when the lesson cannot be found.
struct Summary {
  std::string key_change, lesson;
};
std::optional<Summary> parse_summary(const std::string& text);

}  // namespace agents
