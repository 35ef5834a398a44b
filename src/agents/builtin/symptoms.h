// What a profile says is wrong with a kernel, as a small set of named symptoms the planner maps to
// transformations and the memory uses to compare experiences ("spill", "dma_bound", ...).
#pragma once

#include <set>
#include <string>

#include "trn/profile.h"

namespace agents::builtin {

using Symptoms = std::set<std::string>;

// Symptoms of one profile. Names: spill, dma_bound, act_busy, dve_busy, pool_busy, pe_idle,
// pe_busy, engine_imbalance, many_instructions.
Symptoms diagnose(const trn::Profile& profile);
std::string to_string(const Symptoms& s);     // "spill,dma_bound" ("none" when empty)
Symptoms parse_symptoms(const std::string& text);  // inverse of to_string
double similarity(const Symptoms& a, const Symptoms& b);  // Jaccard index; 1 when both empty
// Busy fraction (0..1) of one engine ("pe", "act", "dve", "pool", "dma") over the kernel's latency.
double busy_fraction(const trn::Profile& profile, const std::string& engine);

}  // namespace agents::builtin
