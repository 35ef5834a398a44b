// The agents backed by a model: each renders its prompt template (prompts/<role>.txt), calls the
// model through the run's LlmSession and parses the answer robustly (response_parser.h). A failed
// call or an unparseable answer is a failed sample; the raw answer is kept in the record.
#pragma once

#include <memory>

#include "agents/agent.h"
#include "agents/llm_session.h"
#include "agents/prompt_template.h"

namespace agents {

// All four roles over one session and one prompt library (both must outlive the agents).
AgentSet make_llm_agents(LlmSession& session, const PromptLibrary& prompts);

}  // namespace agents
