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
  std::string task;    // the task the item was learnt on
  std::string anchor;  // site_anchor of the rewritten site; empty for LLM and older items
  double base_ms = 0;  // latency of the kernel the rewrite was applied to (0: unknown)
  // A two-step plan's first move (site_anchor), which offered this site; empty for one-step items.
  std::string enabled_by;
};

// A rewrite "helped" when it made the kernel at least this much faster (the search's default
// t_pos). Items below it (neutral or slower rewrites, written when the search records every
// outcome: --t-pos 1 --t-neg 1) are evaluations that bought nothing.
inline constexpr double kHelped = 1.04;

// Identifies a site by its move and anchor statement rather than its line: the same rewrite of
// the same statement on a descendant kernel (whose lines moved) has the same anchor.
std::string site_anchor(const Site& site);

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

// The multiplier memory gives one site (1 = no evidence), the product of two factors:
//  - gain: memory_weights' log-speedup evidence, each item weighted by symptom similarity and
//    param_match, so that a tile that grew well does not promote shrinking it; an item about
//    another statement (a different anchor) counts half: moving one instruction to an engine says
//    little about moving another ([e^-2, e^2]);
//  - hit rate: how often the same move helped (>= kHelped) on similar kernels against the prior
//    expectation (one in five): moves that were tried and mostly changed nothing are drawn less
//    (only lowers the weight; gains already raise it).
double memory_site_weight(const std::vector<ExperienceView>& experience, const Symptoms& now, const Site& site);

// True when memory already knows the outcome of this rewrite on a kernel like this one: the very
// same rewrite (same anchor) was evaluated on `task` and did not help (neutral or slower), on a
// kernel of about the same speed (this one, running `now_ms`, is not more than 10% faster: other
// rewrites have not moved the bottleneck since), and never helped on the task. The simulator is
// deterministic and the statement and its surroundings are mostly the same on the descendant and
// sibling kernels the search plans on next, so the planner does not spend an evaluation on it.
// (Also counting two stale outcomes as known saved more evaluations but lost final speedups on
// mamba in the ablation; not kept.) A rewrite that enabled a gain on the task (it is the
// `enabled_by` of an item that helped: "X enables Y: 1.89x") is not a dead end either.
bool known_no_gain(const std::vector<ExperienceView>& experience, const Site& site, const std::string& task,
                   double now_ms);

// The summarizer's item for a built-in rewrite pair.
std::optional<ExperienceItem> summarize_pair(const RewritePair& pair);

// Lines that differ between two kernels ("- old" / "+ new"), at most `max_lines`.
std::string line_diff(const std::string& before, const std::string& after, size_t max_lines = 16);

}  // namespace agents::builtin
