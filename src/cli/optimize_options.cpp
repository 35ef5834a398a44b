#include "cli/optimize_options.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

namespace cli {

namespace fs = std::filesystem;

nlohmann::json to_json(const OptimizeOptions& o) {
  const auto& p = o.params;
  const auto& b = o.budgets;
  const auto& e = o.executor;
  nlohmann::json j = {
      {"tasks", o.tasks.empty() ? o.task : o.tasks},
      {"agent", o.agent},
      {"config", o.config.empty() ? "" : fs::absolute(o.config).string()},
      {"memory_in", o.memory_in},
      {"memory_out", o.memory_out},
      {"bench_root", o.bench_root.empty() ? "" : fs::absolute(o.bench_root).string()},
      {"kernels", o.kernels.empty() ? "" : fs::absolute(o.kernels).string()},
      {"arch", o.arch},
      {"prompts", o.prompts},
      {"seed", o.seed},
      {"check_seeds", o.check_seeds},
      {"confirm_with_profiler", o.confirm_with_profiler},
      {"params",
       {{"B", p.beam}, {"N", p.plans}, {"K", p.kernels}, {"T", p.rounds}, {"topk", p.topk}, {"expn", p.expn},
        {"t_pos", p.t_pos}, {"t_neg", p.t_neg}, {"fixer_attempts", p.fixer_attempts}, {"parallel", p.parallelism}}},
      {"budgets", {{"usd", b.max_usd}, {"tokens", b.max_tokens}, {"evals", b.max_evals}, {"minutes", b.max_minutes}}},
      {"executor",
       {{"kind", e.kind}, {"workers", e.workers}, {"job_timeout_s", e.job_timeout_s}, {"retries", e.retries},
        {"profiler", e.profiler}, {"profiler_command", e.profiler_command}, {"partition", e.partition},
        {"account", e.account}, {"extra_sbatch_args", e.extra_sbatch_args}, {"cpus_per_task", e.cpus_per_task},
        {"max_concurrent", e.max_concurrent}, {"time_limit_minutes", e.time_limit_minutes}}}};
  if (!o.replay.empty()) j["replay"] = fs::absolute(o.replay).string();
  if (!o.run_uid.empty()) j["run_uid"] = o.run_uid;
  return j;
}

void restore(OptimizeOptions& o, const nlohmann::json& j, const CLI::App& given) {
  const search::Budgets overrides = o.budgets;  // a copy: o.budgets is overwritten below
  const std::string arch = o.arch, bench_root = o.bench_root, kernels = o.kernels;
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
  if (!given.count("--confirm-with-profiler")) o.confirm_with_profiler = j.value("confirm_with_profiler", "");
  if (o.replay.empty()) o.replay = j.value("replay", "");
  o.run_uid = j.value("run_uid", "");
  const auto& p = j.at("params");
  o.params = {p.at("B"), p.at("N"), p.at("K"), p.at("T"), p.at("topk"), p.at("expn"), p.at("t_pos"), p.at("t_neg"),
              p.at("fixer_attempts"), p.value("parallel", 4)};
  const auto& b = j.at("budgets");
  o.budgets = {b.value("usd", 0.0), b.value("tokens", int64_t{0}), b.value("evals", int64_t{0}), b.value("minutes", 0.0)};
  if (given.count("--budget-usd")) o.budgets.max_usd = overrides.max_usd;
  if (given.count("--budget-tokens")) o.budgets.max_tokens = overrides.max_tokens;
  if (given.count("--budget-evals")) o.budgets.max_evals = overrides.max_evals;
  if (given.count("--budget-minutes")) o.budgets.max_minutes = overrides.max_minutes;
  // A replay may judge the recorded answers on another arch or benchmark copy.
  if (given.count("--replay") && given.count("--arch")) o.arch = arch;
  if (given.count("--replay") && given.count("--bench-root")) o.bench_root = bench_root;
  if (given.count("--replay") && given.count("--kernels")) o.kernels = kernels;
  const auto& e = j.at("executor");
  if (!given.count("--executor")) o.executor.kind = e.value("kind", "local");
  if (!given.count("--workers")) o.executor.workers = e.value("workers", 2);
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

nlohmann::json read_run_config(const std::string& run_dir, const std::string& flag) {
  fs::path path = fs::path(run_dir) / "config.json";
  if (!fs::exists(path)) throw std::invalid_argument(fmt::format("{} {}: not a run directory (no config.json)", flag, run_dir));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto saved = nlohmann::json::parse(text.str(), nullptr, false);
  if (saved.is_discarded() || !saved.is_object())
    throw std::runtime_error(fmt::format("{}: invalid JSON", path.string()));
  return saved;
}

}  // namespace cli
