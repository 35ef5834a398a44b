// `accelopt optimize`: the AccelOpt loop over one or more NKIBench tasks (docs/optimize.md).
// The run directory holds run.db (the store: every model answer and evaluation), config.json
// (the options, for --resume), eval/ (evaluation jobs), best/, summary.json and memory.json.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agents/agent_registry.h"
#include "agents/llm_agents.h"
#include "agents/llm_setup.h"
#include "bench/bench_root.h"
#include "bench/ref_cache.h"
#include "bench/task_case.h"
#include "cli/command.h"
#include "eval/executor.h"
#include "eval/executor_cli.h"
#include "eval/interrupt.h"
#include "llm/config.h"
#include "search/console_progress.h"
#include "search/kernel_evaluator.h"
#include "search/optimizer.h"
#include "search/run_output.h"
#include "search/store_journal.h"
#include "search/task_loader.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;

struct OptimizeOptions {
  std::string task, tasks, agent = "builtin", config, memory_in, memory_out, out, resume, bench_root, arch = "trn1";
  std::string kernels;  // --kernels DIR: the baselines come from DIR instead of <bench_root>/kernels
  std::string prompts;
  std::string check_seeds;  // "" = the task's own seeds (all five)
  std::string cache_dir;    // reference-output cache for search-time checks ("" = the default one)
  bool no_cache = false;
  search::SearchParams params;
  search::Budgets budgets;
  eval::ExecutorConfig executor;
  uint64_t seed = 0;
  bool no_progress = false;
};

nlohmann::json to_json(const OptimizeOptions& o) {
  const auto& p = o.params;
  const auto& b = o.budgets;
  const auto& e = o.executor;
  return {{"tasks", o.tasks.empty() ? o.task : o.tasks},
          {"agent", o.agent},
          {"config", o.config.empty() ? "" : fs::absolute(o.config).string()},
          {"memory_in", o.memory_in},
          {"memory_out", o.memory_out},
          {"bench_root", fs::absolute(o.bench_root).string()},
          {"kernels", o.kernels.empty() ? "" : fs::absolute(o.kernels).string()},
          {"arch", o.arch},
          {"prompts", o.prompts},
          {"seed", o.seed},
          {"check_seeds", o.check_seeds},
          {"params",
           {{"B", p.beam}, {"N", p.plans}, {"K", p.kernels}, {"T", p.rounds}, {"topk", p.topk}, {"expn", p.expn},
            {"t_pos", p.t_pos}, {"t_neg", p.t_neg}, {"fixer_attempts", p.fixer_attempts}, {"parallel", p.parallelism}}},
          {"budgets",
           {{"usd", b.max_usd}, {"tokens", b.max_tokens}, {"evals", b.max_evals}, {"minutes", b.max_minutes}}},
          {"executor",
           {{"kind", e.kind}, {"workers", e.workers}, {"job_timeout_s", e.job_timeout_s}, {"retries", e.retries},
            {"profiler", e.profiler}, {"profiler_command", e.profiler_command}, {"partition", e.partition},
            {"account", e.account}, {"extra_sbatch_args", e.extra_sbatch_args}, {"cpus_per_task", e.cpus_per_task},
            {"max_concurrent", e.max_concurrent}, {"time_limit_minutes", e.time_limit_minutes}}}};
}

// Restores the options of a run from its config.json (for --resume). Budget options given on
// the command line (`overrides`) win, so a budget-stopped run can be continued with more budget.
void restore(OptimizeOptions& o, const nlohmann::json& j, const search::Budgets& overrides, const CLI::App& sub) {
  o.tasks = j.at("tasks").get<std::string>();
  o.task.clear();
  o.agent = j.value("agent", "llm");
  o.config = j.value("config", "");
  o.memory_in = j.value("memory_in", "");
  if (o.memory_out.empty()) o.memory_out = j.value("memory_out", "");
  o.bench_root = j.value("bench_root", "");
  o.kernels = j.value("kernels", "");
  o.arch = j.value("arch", "trn1");
  o.prompts = j.value("prompts", "");
  o.seed = j.value("seed", uint64_t{0});
  o.check_seeds = j.value("check_seeds", "");
  const auto& p = j.at("params");
  o.params = {p.at("B"), p.at("N"), p.at("K"), p.at("T"), p.at("topk"), p.at("expn"), p.at("t_pos"), p.at("t_neg"),
              p.at("fixer_attempts"), p.value("parallel", 4)};
  const auto& b = j.at("budgets");
  o.budgets = {b.value("usd", 0.0), b.value("tokens", int64_t{0}), b.value("evals", int64_t{0}), b.value("minutes", 0.0)};
  if (sub.count("--budget-usd")) o.budgets.max_usd = overrides.max_usd;
  if (sub.count("--budget-tokens")) o.budgets.max_tokens = overrides.max_tokens;
  if (sub.count("--budget-evals")) o.budgets.max_evals = overrides.max_evals;
  if (sub.count("--budget-minutes")) o.budgets.max_minutes = overrides.max_minutes;
  const auto& e = j.at("executor");
  if (!sub.count("--executor")) o.executor.kind = e.value("kind", "local");
  if (!sub.count("--workers")) o.executor.workers = e.value("workers", 2);
  o.executor.job_timeout_s = e.value("job_timeout_s", 900.0);
  o.executor.retries = e.value("retries", 1);
  o.executor.profiler = e.value("profiler", "sim");
  o.executor.profiler_command = e.value("profiler_command", "");
  o.executor.partition = e.value("partition", "");
  o.executor.account = e.value("account", "");
  o.executor.extra_sbatch_args = e.value("extra_sbatch_args", "");
  o.executor.cpus_per_task = e.value("cpus_per_task", 1);
  o.executor.max_concurrent = e.value("max_concurrent", 0);
  o.executor.time_limit_minutes = e.value("time_limit_minutes", 30);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string default_run_dir() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return fmt::format("runs/{}-{}", stamp, ::getpid());
}

// The initial state: a resumed run's last checkpoint, else an empty run with --memory-in.
search::RunState initial_state(const OptimizeOptions& o, search::RunJournal& journal) {
  std::string checkpoint = journal.last_checkpoint();
  if (!checkpoint.empty()) return search::deserialize_state(checkpoint, static_cast<size_t>(o.params.expn));
  search::RunState state;
  state.memory = o.memory_in.empty() ? agents::Memory(static_cast<size_t>(o.params.expn))
                                     : agents::load_memory(o.memory_in, static_cast<size_t>(o.params.expn));
  return state;
}

struct Agents {
  std::unique_ptr<agents::PromptLibrary> prompts;
  std::unique_ptr<agents::LlmSession> session;
  agents::AgentSet set;
};

Agents make_agents(const OptimizeOptions& o, search::RunJournal& journal) {
  Agents a;
  if (o.agent != "llm") {
    const agents::AgentFactory* factory = agents::find_agent_kind(o.agent);
    if (!factory) throw std::invalid_argument(fmt::format("--agent {}: not available in this build", o.agent));
    a.set = (*factory)(o.seed);
    return a;
  }
  if (o.config.empty()) throw std::invalid_argument("--agent llm needs --config FILE (the agents' endpoints, docs/config.md)");
  llm::AgentsConfig config = llm::load_agents_config(o.config);
  a.prompts = std::make_unique<agents::PromptLibrary>(o.prompts);
  a.session = std::make_unique<agents::LlmSession>(agents::make_llm_roles(config, o.seed), &journal);
  a.set = agents::make_llm_agents(*a.session, *a.prompts);
  if (o.params.fixer_attempts == 0) a.set.fixer.reset();
  return a;
}

// Loads everything the run reads from the user's files (agent kind, agents config, prompts,
// initial memory) so that a mistake fails before the run directory is created: a directory
// holding config.json counts as a run, and a failed start must not block the next attempt.
void validate_inputs(const OptimizeOptions& o) {
  if (o.agent != "llm") {
    if (!agents::find_agent_kind(o.agent))
      throw std::invalid_argument(fmt::format("--agent {}: not available in this build", o.agent));
  } else {
    if (o.config.empty()) throw std::invalid_argument("--agent llm needs --config FILE (the agents' endpoints, docs/config.md)");
    llm::load_agents_config(o.config);
    agents::PromptLibrary prompts(o.prompts);
  }
  if (!o.memory_in.empty()) agents::load_memory(o.memory_in, static_cast<size_t>(o.params.expn));
}

void save_memory_out(const OptimizeOptions& o, const search::RunState& state) {
  if (o.memory_out.empty()) return;
  agents::save_memory(state.memory, o.memory_out);
}

int exit_code(const search::RunState& state) {
  if (state.stop == search::StopReason::AllCallsFailed) return 3;
  if (state.stop == search::StopReason::Cancelled) return 130;
  return 0;
}

// The built-in summarizer costs nothing, so by default it records every outcome, neutral and
// slower rewrites included: its planner reads them as "tried here, did not help" and does not
// spend evaluations on them again (docs/builtin_agent.md, Memory), and the memory holds more
// items. Explicit --t-pos/--t-neg/--expn win; the LLM agents keep the published thresholds.
void builtin_memory_defaults(OptimizeOptions& o, const CLI::App& sub) {
  if (o.agent != "builtin") return;
  if (sub.count("--t-pos") == 0) o.params.t_pos = 1.0;
  if (sub.count("--t-neg") == 0) o.params.t_neg = 1.0;
  if (sub.count("--expn") == 0) o.params.expn = 128;
}

int run_optimize(OptimizeOptions o, const CLI::App& sub) {
  std::string run_dir = o.resume.empty() ? (o.out.empty() ? default_run_dir() : o.out) : o.resume;
  fs::path config_path = fs::path(run_dir) / "config.json";
  if (!o.resume.empty()) {
    if (!fs::exists(config_path))
      throw std::invalid_argument(fmt::format("--resume {}: not a run directory (no config.json)", run_dir));
    auto saved = nlohmann::json::parse(read_text(config_path.string()), nullptr, false);
    if (saved.is_discarded()) throw std::runtime_error(fmt::format("{}: invalid JSON", config_path.string()));
    restore(o, saved, o.budgets, sub);
  } else {
    if (o.task.empty() == o.tasks.empty()) throw std::invalid_argument("give exactly one of --task T and --tasks a,b|all");
    if (fs::exists(config_path))
      throw std::invalid_argument(fmt::format("--out {}: already holds a run (use --resume {})", run_dir, run_dir));
    if (o.bench_root.empty()) o.bench_root = bench::default_bench_root();
    if (o.bench_root.empty()) throw std::invalid_argument("no benchmark found: give --bench-root DIR");
    builtin_memory_defaults(o, sub);
  }
  search::validate(o.params);
  search::validate(o.budgets);
  std::vector<std::string> warnings;
  auto tasks = search::load_tasks(o.bench_root, o.tasks.empty() ? o.task : o.tasks, o.arch, warnings, o.kernels);
  for (const auto& w : warnings) fmt::print(stderr, "accelopt: warning: {}\n", w);
  if (tasks.empty()) throw std::invalid_argument("no task to optimize");
  if (!o.check_seeds.empty()) {
    // Search-time checks only: the reported best is re-checked with the task's own seeds.
    std::vector<int> seeds = bench::parse_seeds(o.check_seeds);
    for (auto& t : tasks) t.seeds = seeds;
  }
  if (o.resume.empty()) validate_inputs(o);

  fs::create_directories(run_dir);
  std::string run_name = fs::path(run_dir).filename().string();
  if (o.resume.empty()) search::write_file_atomic(config_path.string(), to_json(o).dump(2) + "\n");
  store::RunStore store((fs::path(run_dir) / "run.db").string());
  auto existing = store.latest_run();
  int64_t run_id = existing ? existing->id : store.create_run(run_name, to_json(o).dump());
  store.set_run_status(run_id, "running");
  search::StoreJournal journal(store, run_id);

  Agents agents = make_agents(o, journal);
  eval::ExecutorConfig exec = o.executor;
  if (exec.run_dir.empty()) exec.run_dir = (fs::path(run_dir) / "eval").string();
  auto executor = eval::make_executor(exec);
  // Search-time checks may take the reference outputs from the cache (they never change for a
  // task); the final re-check does not (recheck.h).
  std::string ref_cache = o.no_cache ? "" : (o.cache_dir.empty() ? bench::default_ref_cache_dir() : o.cache_dir);
  search::CachedEvaluator evaluator(*executor, &journal, ref_cache);
  search::RunState state = initial_state(o, journal);
  search::BudgetTracker budget(o.budgets, state.elapsed_s);
  search::ConsoleProgress progress(stderr, !o.no_progress && ::isatty(STDERR_FILENO), run_name);
  if (!o.resume.empty()) progress.on_message(fmt::format("resuming {} ({} tasks finished)", run_dir, state.finished.size()));

  search::SearchEnv env{o.params, agents.set, &evaluator, agents.session.get(), &budget, &progress};
  env.recheck_best = true;  // every reported best passes the five-seed check from a fresh worker
  eval::InterruptGuard interrupts;
  state = search::Optimizer(env, &journal).run(tasks, std::move(state));

  search::write_run_outputs(run_dir, state, run_name);
  save_memory_out(o, state);
  auto summary = search::run_summary(state, run_name);
  store.set_run_status(run_id, summary.value("status", "finished"));
  fmt::print("{}", search::format_summary(summary));
  fmt::print("best kernels: {}/best/   summary: {}/summary.json\n", run_dir, run_dir);
  if (!state.stop_message.empty()) fmt::print(stderr, "accelopt: {}\n", state.stop_message);
  if (summary.value("status", "") == "failed") return 1;  // no task could even start
  return exit_code(state);
}

cli::RunFn setup(CLI::App& sub) {
  auto o = std::make_shared<OptimizeOptions>();
  auto& p = o->params;
  auto& b = o->budgets;
  sub.add_option("--task", o->task, "the task to optimize (a task or task_config name)");
  sub.add_option("--tasks", o->tasks, "tasks to optimize, comma-separated, or 'all'");
  sub.add_option("--agent", o->agent, "builtin (offline source rewrites, the default) or llm (models from --config)")->capture_default_str();
  sub.add_option("--config", o->config, "the agents' configuration file (docs/config.md)");
  sub.add_option("--prompts", o->prompts, "directory of prompt templates overriding the built-in ones");
  sub.add_option("--bench-root", o->bench_root, "benchmark directory in the NKIBench layout (default: the bundled one)");
  sub.add_option("--kernels", o->kernels, "directory of baseline kernels to start from instead of the benchmark's "
                                          "(<task>_<config>_0.py or <task>.py), e.g. nkibench/styles/nki_api");
  sub.add_option("--arch", o->arch, "trn1 or trn2")->check(CLI::IsMember({"trn1", "trn2"}))->capture_default_str();
  sub.add_option("--B", p.beam, "beam width")->capture_default_str();
  sub.add_option("--N", p.plans, "plans per candidate")->capture_default_str();
  sub.add_option("--K", p.kernels, "kernels per plan")->capture_default_str();
  sub.add_option("--T", p.rounds, "rounds")->capture_default_str();
  sub.add_option("--topk", p.topk, "rewrite pairs summarized per round")->capture_default_str();
  sub.add_option("--expn", p.expn, "memory capacity (experience items)")->capture_default_str();
  sub.add_option("--t-pos", p.t_pos, "speedup that makes a positive rewrite")->capture_default_str();
  sub.add_option("--t-neg", p.t_neg, "slowdown that makes a negative rewrite")->capture_default_str();
  sub.add_option("--fixer-attempts", p.fixer_attempts, "repair attempts per failed kernel (0 disables)")->capture_default_str();
  sub.add_option("--parallel", p.parallelism, "agent calls in flight at once")->capture_default_str();
  sub.add_option("--budget-usd", b.max_usd, "stop once this much was spent on models (0 = no limit)");
  sub.add_option("--budget-tokens", b.max_tokens, "stop after this many tokens (0 = no limit)");
  sub.add_option("--budget-evals", b.max_evals, "stop after this many evaluations (0 = no limit)");
  sub.add_option("--budget-minutes", b.max_minutes, "stop after this much wall time (0 = no limit)");
  sub.add_option("--memory-in", o->memory_in, "start from this memory file");
  sub.add_option("--memory-out", o->memory_out, "write the final memory to this file");
  sub.add_option("--out", o->out, "run directory (default runs/<time>-<pid>)");
  sub.add_option("--resume", o->resume, "continue the run in this directory");
  sub.add_option("--seed", o->seed, "seed for retry jitter (0 = from the clock)");
  sub.add_option("--check-seeds", o->check_seeds,
                 "seeds of the correctness check during the search, e.g. 0 (default: the task's five); "
                 "the reported best is always re-checked with all five")
      ->check([](const std::string& v) {
        try {
          bench::parse_seeds(v);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      });
  sub.add_option("--cache-dir", o->cache_dir, "reference-output cache for search-time checks (default: as accelopt eval)");
  sub.add_flag("--no-cache", o->no_cache, "compute the reference outputs for every check");
  sub.add_flag("--no-progress", o->no_progress, "log lines instead of the live display");
  eval::add_executor_options(sub, o->executor);
  return [o, &sub] { return run_optimize(*o, sub); };
}

cli::CommandRegistrar reg("optimize", "optimize kernels with the AccelOpt beam search and memory", setup);

}  // namespace
