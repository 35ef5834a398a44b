// Text renderings of the values that go into prompts (profile, memory, latency), shared by the
// LLM agents. Deterministic: the same values give the same text, so recorded answers replay.
#pragma once

#include <optional>
#include <string>

#include "agents/memory.h"
#include "agents/prompt_template.h"
#include "agents/types.h"

namespace agents {

std::string format_latency(double ms);                      // "1.234 ms"
std::string format_profile(const std::optional<trn::Profile>& profile, double peak_latency_ms);
std::string format_memory(const Memory& memory);            // "(none yet)" when empty
// The variables every template may use: task, arch, reference, guide, rules.
PromptVars common_vars(const PromptLibrary& prompts, const TaskInfo& task);

}  // namespace agents
