// The agents of an `accelopt optimize` run: a registered kind (the built-in agent), or the LLM
// agents over the models of --config, or for --replay the LLM agents answered from a recorded run.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "agents/agent.h"
#include "agents/llm_session.h"
#include "agents/llm_setup.h"
#include "agents/prompt_template.h"
#include "cli/optimize_options.h"
#include "search/store_journal.h"
#include "store/run_store.h"

namespace cli {

struct OptimizeAgents {
  std::unique_ptr<agents::PromptLibrary> prompts;
  std::unique_ptr<store::RunStore> recorded_store;  // --replay: the recorded run's store
  std::unique_ptr<search::StoreAnswers> recorded;
  std::unique_ptr<agents::LlmSession> session;
  agents::AgentSet set;
};

// Loads everything the run reads from the user's files (agent kind, agents config, API key
// variables, prompts, initial memory; for a replay the recorded run) so that a mistake fails
// before the run directory is created: a directory holding config.json counts as a run, and a
// failed start must not block the next attempt.
void validate_inputs(const OptimizeOptions& o);

// The agents; `journal` records (and on resume replays) this run's calls.
OptimizeAgents make_agents(const OptimizeOptions& o, search::RunJournal& journal, agents::RetryObserver on_retry);

// What the run store keeps as the run's configuration: the options, and for the LLM agents the
// agents configuration they used (so a replay knows the models without the file).
nlohmann::json run_record(const OptimizeOptions& o);

}  // namespace cli
