// What a profile says is wrong with a kernel, as a small set of named symptoms the planner maps to
// transformations and the memory uses to compare experiences ("spill", "dma_bound", ...).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "trn/profile.h"

namespace agents::builtin {

using Symptoms = std::set<std::string>;

// Symptoms of one profile. Names: spill, dma_bound, act_busy, dve_busy, pool_busy, pe_idle,
// pe_busy, engine_imbalance, many_instructions, space_bound.
Symptoms diagnose(const trn::Profile& profile);
std::string to_string(const Symptoms& s);     // "spill,dma_bound" ("none" when empty)
Symptoms parse_symptoms(const std::string& text);  // inverse of to_string
double similarity(const Symptoms& a, const Symptoms& b);  // Jaccard index; 1 when both empty
// Busy fraction (0..1) of one engine ("pe", "act", "dve", "pool", "dma") over the kernel's latency.
double busy_fraction(const trn::Profile& profile, const std::string& engine);

// The share of the kernel's latency during which a compute instruction was held back by SBUF space
// (trn::Profile::sbuf_space_wait_ms); empty when the profile does not say (a real profiler's).
std::optional<double> space_wait_share(const trn::Profile& profile);
// From this share on the kernel is `space_bound`; below it in_place is drawn last (roofline.h
// frees_space_nobody_waits_for). Chosen on the stored in_place draws (docs/builtin_agent.md
// "in_place"): none of the 16 draws below it gained, 22 of 52 above it did.
constexpr double kSpaceBoundShare = 0.05;

}  // namespace agents::builtin
