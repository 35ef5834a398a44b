#include "cli/optimize_agents.h"

#include <filesystem>

#include <fmt/core.h>

#include "agents/agent_registry.h"
#include "agents/llm_agents.h"
#include "agents/memory.h"
#include "llm/config.h"

namespace cli {

namespace {

namespace fs = std::filesystem;

// The recorded run of --replay: its store, and the agents configuration it ran with (kept in its
// store since this version; older runs: their --config file, if it still exists).
struct RecordedRun {
  std::unique_ptr<store::RunStore> store;
  int64_t run_id = 0;
  llm::AgentsConfig agents;
};

RecordedRun open_recorded(const std::string& run_dir) {
  fs::path db = fs::path(run_dir) / "run.db";
  if (!fs::exists(db)) throw std::invalid_argument(fmt::format("--replay {}: no run store (run.db) to replay", run_dir));
  RecordedRun run;
  run.store = std::make_unique<store::RunStore>(db.string());
  auto record = run.store->latest_run();
  if (!record) throw std::invalid_argument(fmt::format("--replay {}: the run store holds no run", run_dir));
  run.run_id = record->id;
  auto options = nlohmann::json::parse(record->config_json, nullptr, false);
  if (options.is_object() && options.contains("agents_config")) {
    run.agents = llm::parse_agents_config(options["agents_config"].dump(), db.string() + " (agents_config)");
    return run;
  }
  std::string file = options.is_object() ? options.value("config", "") : "";
  if (file.empty() || !fs::exists(file))
    throw std::invalid_argument(fmt::format(
        "--replay {}: the run was recorded by an older accelopt, which kept its agents config only in {}; "
        "that file is gone", run_dir, file.empty() ? "its --config file" : file));
  run.agents = llm::load_agents_config(file);
  return run;
}

}  // namespace

void validate_inputs(const OptimizeOptions& o) {
  if (!o.replay.empty()) {
    if (o.agent != "llm") throw std::invalid_argument(fmt::format("--replay {}: the run did not use the LLM agents (--agent {})", o.replay, o.agent));
    open_recorded(o.replay);
    agents::PromptLibrary prompts(o.prompts);
  } else if (o.agent != "llm") {
    if (!agents::find_agent_kind(o.agent))
      throw std::invalid_argument(fmt::format("--agent {}: not available in this build", o.agent));
  } else {
    if (o.config.empty()) throw std::invalid_argument("--agent llm needs --config FILE (the agents' endpoints, docs/config.md)");
    agents::check_api_keys(llm::load_agents_config(o.config));
    agents::PromptLibrary prompts(o.prompts);
  }
  if (!o.memory_in.empty()) agents::load_memory(o.memory_in, static_cast<size_t>(o.params.expn));
}

OptimizeAgents make_agents(const OptimizeOptions& o, search::RunJournal& journal, agents::RetryObserver on_retry) {
  OptimizeAgents a;
  if (o.agent != "llm") {
    const agents::AgentFactory* factory = agents::find_agent_kind(o.agent);
    if (!factory) throw std::invalid_argument(fmt::format("--agent {}: not available in this build", o.agent));
    a.set = (*factory)(o.seed);
    return a;
  }
  a.prompts = std::make_unique<agents::PromptLibrary>(o.prompts);
  if (!o.replay.empty()) {
    RecordedRun run = open_recorded(o.replay);
    a.recorded_store = std::move(run.store);
    a.recorded = std::make_unique<search::StoreAnswers>(*a.recorded_store, run.run_id, o.replay);
    a.session = std::make_unique<agents::LlmSession>(agents::make_llm_roles(run.agents, o.seed, {}, /*with_clients=*/false),
                                                     &journal, a.recorded.get());
  } else {
    if (o.config.empty()) throw std::invalid_argument("--agent llm needs --config FILE (the agents' endpoints, docs/config.md)");
    llm::AgentsConfig config = llm::load_agents_config(o.config);
    agents::check_api_keys(config);  // also on resume: a new shell may lack the variable
    a.session = std::make_unique<agents::LlmSession>(agents::make_llm_roles(config, o.seed, std::move(on_retry)), &journal);
  }
  a.set = agents::make_llm_agents(*a.session, *a.prompts);
  if (o.params.fixer_attempts == 0) a.set.fixer.reset();
  return a;
}

nlohmann::json run_record(const OptimizeOptions& o) {
  nlohmann::json j = to_json(o);
  if (o.agent == "llm" && o.replay.empty() && !o.config.empty())
    j["agents_config"] = nlohmann::json::parse(llm::agents_config_json(llm::load_agents_config(o.config)));
  if (!o.replay.empty()) j["agents_config"] = nlohmann::json::parse(llm::agents_config_json(open_recorded(o.replay).agents));
  return j;
}

}  // namespace cli
