// The built-in agent's plans are plain text, like an LLM planner's, with three machine-readable
// lines the executor and summarizer read back:
//   Transformation: free_size
//   Parameters: line=12 value=2048 var=block
//   Symptoms: dma_bound,many_instructions
#pragma once

#include <optional>
#include <string>

#include "agents/builtin/symptoms.h"
#include "agents/builtin/transform.h"
#include "agents/types.h"

namespace agents::builtin {

Plan make_plan(const Site& site, const Symptoms& symptoms, const std::string& rationale);
// A two-step plan: `enabler` first, then `site` (a site of the enabler's result, its line in that
// text). Two more machine lines name the first step:
//   Enabled by: interchange_loops
//   Enabler parameters: anchor=16x8x32/load#0 line=18
Plan make_two_step_plan(const Site& enabler, const Site& site, const Symptoms& symptoms, const std::string& rationale);

struct ParsedPlan {
  Site site;
  Symptoms symptoms;
  std::optional<Site> enabler;  // applied before `site` (two-step plans)
};
// Reads the machine lines; nullopt when the text is not a built-in plan.
std::optional<ParsedPlan> parse_plan(const std::string& text);

}  // namespace agents::builtin
