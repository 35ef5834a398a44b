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

struct ParsedPlan {
  Site site;
  Symptoms symptoms;
};
// Reads the machine lines; nullopt when the text is not a built-in plan.
std::optional<ParsedPlan> parse_plan(const std::string& text);

}  // namespace agents::builtin
