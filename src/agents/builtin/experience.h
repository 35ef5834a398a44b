// How the built-in agent reads and writes optimization memory. Its own items carry the
// transformation, parameters and symptoms in plain text ("[builtin] NAME: ..." titles and a
// "builtin: transform=NAME ..." lesson); items written by the LLM agents are mapped to a
// transformation by keywords, so both kinds of agent learn from each other's experience.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/builtin/symptoms.h"
#include "agents/builtin/transform.h"
#include "agents/memory.h"
#include "agents/types.h"

namespace agents::builtin {

struct ExperienceView {
  std::string transform;
  std::optional<Symptoms> symptoms;  // unknown for LLM items
  double speedup = 1;               // > 1: the transformation helped; < 1: it hurt
  std::map<std::string, std::string> params;  // the site's parameters (built-in items only)
};

// The transformation an item is about, or nullopt when it names none we know.
std::optional<ExperienceView> read_experience(const ExperienceItem& item);

// A multiplier per transformation (1 = no evidence): experiences on similar symptoms that sped
// kernels up raise it, ones that slowed them down lower it. Bounded to [e^-2, e^2].
std::map<std::string, double> memory_weights(const Memory& memory, const Symptoms& now);

// Every item of `memory` that names a transformation, read once for memory_site_weight.
std::vector<ExperienceView> read_memory(const Memory& memory);

// How much an experience's parameters speak for `site` (same transformation assumed): 1 when
// they agree (an engine move to the same engine, a tile size changed in the same direction),
// 0.6 when one side has parameters the other lacks, 0.15 when they conflict (moving to another
// engine, shrinking instead of growing: evidence about a different move), 0.5 for items without
// parameters (the LLM agents').
double param_match(const ExperienceView& view, const Site& site);

// The multiplier memory gives one site (1 = no evidence): memory_weights' per-transformation
// evidence, each item weighted by param_match as well, so that a tile that grew well does not
// promote shrinking it. Bounded to [e^-2, e^2].
double memory_site_weight(const std::vector<ExperienceView>& experience, const Symptoms& now, const Site& site);

// The summarizer's item for a built-in rewrite pair.
std::optional<ExperienceItem> summarize_pair(const RewritePair& pair);

// Lines that differ between two kernels ("- old" / "+ new"), at most `max_lines`.
std::string line_diff(const std::string& before, const std::string& after, size_t max_lines = 16);

}  // namespace agents::builtin
