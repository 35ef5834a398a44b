// `accelopt optimize`: the AccelOpt loop over one or more NKIBench tasks (docs/optimize.md).
// The run directory holds run.db (the store: every model answer and evaluation), config.json
// (the options, for --resume), eval/ (evaluation jobs), best/, summary.json and memory.json.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/plural.h"
#include "cli/optimize_agents.h"
#include "cli/optimize_options.h"
#include "cli/optimize_resume.h"
#include "bench/bench_root.h"
#include "bench/task_case.h"
#include "cli/command.h"
#include "eval/executor.h"
#include "eval/executor_cli.h"
#include "eval/interrupt.h"
#include "eval/ref_cache.h"
#include "llm/config.h"
#include "report/live_report.h"
#include "search/confirm.h"
#include "search/console_progress.h"
#include "search/kernel_evaluator.h"
#include "search/optimizer.h"
#include "search/run_lock.h"
#include "search/run_output.h"
#include "search/store_journal.h"
#include "search/task_loader.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;
using cli::OptimizeOptions;

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

void save_memory_out(const OptimizeOptions& o, const search::RunState& state) {
  if (o.memory_out.empty()) return;
  agents::save_memory(state.memory, o.memory_out);
}

// Columns of the terminal on stderr (0 when it is not one).
int terminal_columns() {
  struct winsize size {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

int exit_code(const search::RunState& state) {
  if (state.stop == search::StopReason::AllCallsFailed) return 3;
  if (state.stop == search::StopReason::ReplayMissing) return 4;
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

bool budget_given(const CLI::App& sub) {
  for (const char* flag : {"--budget-usd", "--budget-tokens", "--budget-evals", "--budget-minutes"})
    if (sub.count(flag)) return true;
  return false;
}

// The run directory and the options: a new run's from the command line; a resumed run's from
// its config.json (budgets given again override, and are saved); a replay's from the recorded
// run's config.json, in a new directory.
std::string prepare_options(OptimizeOptions& o, const CLI::App& sub) {
  if (!o.resume.empty()) {
    const OptimizeOptions asked = o;
    cli::restore(o, cli::read_run_config(o.resume, "--resume"), sub);
    cli::check_resume_options(asked, o, sub);
    if (budget_given(sub))  // the larger budget holds for later resumes too
      base::write_file_atomic((fs::path(o.resume) / "config.json").string(), cli::to_json(o).dump(2) + "\n");
    return o.resume;
  }
  std::string run_dir = o.out.empty() ? default_run_dir() : o.out;
  if (fs::exists(fs::path(run_dir) / "config.json"))
    throw std::invalid_argument(fmt::format("--out {}: already holds a run (use --resume {})", run_dir, run_dir));
  if (!o.replay.empty()) {
    if (!o.task.empty() || !o.tasks.empty()) throw std::invalid_argument("--replay runs the recorded run's tasks: drop --task/--tasks");
    if (fs::absolute(o.replay) == fs::absolute(run_dir)) throw std::invalid_argument("--replay: give a new --out directory");
    std::string memory_out = o.memory_out;  // never the recorded run's file: the replay would overwrite it
    cli::restore(o, cli::read_run_config(o.replay, "--replay"), sub);
    o.memory_out = memory_out;
    o.run_uid = cli::new_run_uid();  // a replay is a run of its own
    return run_dir;
  }
  if (o.task.empty() == o.tasks.empty()) throw std::invalid_argument("give exactly one of --task T and --tasks a,b|all");
  if (o.bench_root.empty()) o.bench_root = bench::default_bench_root();
  if (o.bench_root.empty()) throw std::invalid_argument("no benchmark found: give --bench-root DIR");
  builtin_memory_defaults(o, sub);
  o.run_uid = cli::new_run_uid();
  return run_dir;
}

int run_optimize(OptimizeOptions o, const CLI::App& sub) {
  bool fresh = o.resume.empty();
  std::string run_dir = prepare_options(o, sub);
  fs::path config_path = fs::path(run_dir) / "config.json";
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
  if (fresh) cli::validate_inputs(o);

  fs::create_directories(run_dir);
  search::RunDirLock lock(run_dir);  // held to the end: one process at a time in a run
  std::string run_name = fs::path(run_dir).filename().string();
  const std::string db_path = (fs::path(run_dir) / "run.db").string();
  if (fresh && fs::exists(db_path))  // config.json is checked in prepare_options; this is a run.db without one
    throw std::invalid_argument(fmt::format("--out {}: already holds a run store ({}); give a new directory", run_dir, db_path));
  if (!fresh) cli::check_run_store_exists(run_dir);
  if (fresh) base::write_file_atomic(config_path.string(), cli::to_json(o).dump(2) + "\n");
  store::RunStore store(db_path);
  int64_t run_id = fresh ? store.create_run(run_name, cli::run_record(o).dump()) : cli::resumed_run_id(run_dir, o, store);
  store.set_run_status(run_id, "running");
  search::StoreJournal journal(store, run_id);

  std::string page = (fs::path(run_dir) / "report.html").string();
  search::ProgressPlan plan{{}, o.params.rounds, o.report ? page : "", terminal_columns()};
  for (const auto& t : tasks) plan.tasks.push_back(t.info.name);
  search::ConsoleProgress console(stderr, !o.no_progress && ::isatty(STDERR_FILENO), run_name, plan);
  report::ReportRefresher refresher(console, run_dir, page);
  search::ProgressObserver& progress = o.report ? static_cast<search::ProgressObserver&>(refresher) : console;
  cli::OptimizeAgents agents = cli::make_agents(
      o, journal, [&progress](const std::string& agent, const llm::RetryNotice& notice) { progress.on_retry(agent, notice); });
  eval::ExecutorConfig exec = o.executor;
  if (exec.run_dir.empty()) exec.run_dir = (fs::path(run_dir) / "eval").string();
  auto executor = eval::make_executor(exec);
  // Search-time checks may take the reference outputs from the cache (they never change for a
  // task); the final re-check does not (recheck.h).
  std::string ref_cache = o.no_cache ? "" : (o.cache_dir.empty() ? eval::default_ref_cache_dir() : o.cache_dir);
  search::CachedEvaluator evaluator(*executor, &journal, ref_cache);
  search::RunState state = initial_state(o, journal);
  // A process killed between checkpoints worked until its last recorded call or evaluation.
  search::BudgetTracker budget(o.budgets, state.elapsed_s + journal.seconds_after_last_checkpoint());
  if (!fresh) progress.on_message(fmt::format("resuming {} ({} finished)", run_dir, base::count_of(static_cast<int64_t>(state.finished.size()), "task")));
  if (!fresh) report::record_resume(run_dir, state);
  if (!o.replay.empty())
    progress.on_message(fmt::format("replaying {}: every model answer comes from its store (no endpoint is called)", o.replay));
  if (o.report && refresher.refresh(false)) progress.on_message(fmt::format("report: {} (refreshed after every round)", page));

  search::SearchEnv env{o.params, agents.set, &evaluator, agents.session.get(), &budget, &progress};
  env.recheck_best = true;  // every reported best passes the five-seed check from a fresh worker
  eval::InterruptGuard interrupts;
  state = search::Optimizer(env, &journal).run(tasks, std::move(state));
  if (!o.confirm_with_profiler.empty() && !eval::interrupt_requested()) {
    // The final baselines and bests, once more through the command profiler (docs/evaluation.md).
    eval::ExecutorConfig confirm = exec;
    confirm.profiler = "command";
    confirm.profiler_command = o.confirm_with_profiler;
    confirm.run_dir = (fs::path(run_dir) / "eval-profiler").string();
    auto confirm_executor = eval::make_executor(confirm);
    search::CachedEvaluator confirm_evaluator(*confirm_executor, nullptr);
    progress.on_message(fmt::format("re-profiling the baselines and bests with {}", o.confirm_with_profiler));
    search::confirm_with_profiler(confirm_evaluator, tasks, state);
  }

  search::write_run_outputs(run_dir, state, run_name);
  save_memory_out(o, state);
  auto summary = search::run_summary(state, run_name);
  store.set_run_status(run_id, summary.value("status", "finished"));
  fmt::print("{}", search::format_summary(summary));
  fmt::print("best kernels: {}/best/   summary: {}/summary.json\n", run_dir, run_dir);
  if (o.report && refresher.refresh(true)) fmt::print("report: {}\n", page);
  else fmt::print("draw it: accelopt report {}\n", run_dir);
  if (!state.stop_message.empty()) fmt::print(stderr, "accelopt: {}\n", state.stop_message);
  if (state.stop == search::StopReason::Cancelled)
    fmt::print(stderr, "accelopt: stopped; the evaluations in flight were not kept, and a resume runs them again. "
               "Continue with: accelopt optimize --resume {}\n",
               run_dir);
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
  sub.add_option("--replay", o->replay,
                 "re-run the recorded run in this directory with its model answers (no endpoint); "
                 "--arch or --bench-root judge them anew")
      ->excludes("--resume");
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
  sub.add_flag("--report", o->report, "keep RUN_DIR/report.html current during the run (the page reloads itself)");
  sub.add_option("--confirm-with-profiler", o->confirm_with_profiler,
                 "after the search, profile each task's baseline and best with this command profiler "
                 "(docs/evaluation.md) and report both the simulated and the measured numbers");
  eval::add_executor_options(sub, o->executor);
  return [o, &sub] { return run_optimize(*o, sub); };
}

cli::CommandRegistrar reg("optimize", "optimize kernels with the AccelOpt beam search and memory", setup);

}  // namespace
