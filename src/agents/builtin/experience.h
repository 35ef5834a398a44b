// How the built-in agent reads and writes optimization memory. Its own items carry the
// transformation, parameters and symptoms in plain text ("[builtin] NAME: ..." titles and a
// "builtin: transform=NAME ..." lesson); items written by the LLM agents are mapped to a
// transformation by keywords, so both kinds of agent learn from each other's experience.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "agents/builtin/symptoms.h"
#include "agents/memory.h"
#include "agents/types.h"

namespace agents::builtin {

struct ExperienceView {
  std::string transform;
  std::optional<Symptoms> symptoms;  // unknown for LLM items
  double speedup = 1;               // > 1: the transformation helped; < 1: it hurt
};

// The transformation an item is about, or nullopt when it names none we know.
std::optional<ExperienceView> read_experience(const ExperienceItem& item);

// A multiplier per transformation (1 = no evidence): experiences on similar symptoms that sped
// kernels up raise it, ones that slowed them down lower it. Bounded to [e^-2, e^2].
std::map<std::string, double> memory_weights(const Memory& memory, const Symptoms& now);

// The summarizer's item for a built-in rewrite pair.
std::optional<ExperienceItem> summarize_pair(const RewritePair& pair);

// Lines that differ between two kernels ("- old" / "+ new"), at most `max_lines`.
std::string line_diff(const std::string& before, const std::string& after, size_t max_lines = 16);

}  // namespace agents::builtin
