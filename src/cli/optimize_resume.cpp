#include "cli/optimize_resume.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/core.h>

namespace cli {

namespace fs = std::filesystem;

namespace {

// The options that define the run, and where config.json keeps each.
const std::vector<std::pair<const char*, const char*>>& run_defining_options() {
  static const std::vector<std::pair<const char*, const char*>> options = {
      {"--task", "/tasks"},          {"--tasks", "/tasks"},           {"--agent", "/agent"},
      {"--config", "/config"},       {"--prompts", "/prompts"},       {"--bench-root", "/bench_root"},
      {"--kernels", "/kernels"},     {"--arch", "/arch"},             {"--memory-in", "/memory_in"},
      {"--seed", "/seed"},           {"--check-seeds", "/check_seeds"}, {"--B", "/params/B"},
      {"--N", "/params/N"},          {"--K", "/params/K"},            {"--T", "/params/T"},
      {"--topk", "/params/topk"},    {"--expn", "/params/expn"},      {"--t-pos", "/params/t_pos"},
      {"--t-neg", "/params/t_neg"},  {"--fixer-attempts", "/params/fixer_attempts"},
      {"--parallel", "/params/parallel"}, {"--profiler", "/executor/profiler"},
      {"--profiler-command", "/executor/profiler_command"}, {"--job-timeout", "/executor/job_timeout_s"},
      {"--retries", "/executor/retries"}};
  return options;
}

std::string shown(const nlohmann::json& v) { return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump(); }

}  // namespace

std::string new_run_uid() {
  std::random_device device;
  std::mt19937_64 rng((uint64_t(device()) << 32) ^ device() ^
                      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ uint64_t(::getpid()));
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

void check_resume_options(const OptimizeOptions& asked, const OptimizeOptions& restored, const CLI::App& given) {
  const nlohmann::json want = to_json(asked), have = to_json(restored);
  for (const auto& [flag, where] : run_defining_options()) {
    if (given.count(flag) == 0) continue;
    nlohmann::json::json_pointer pointer(where);
    if (want.at(pointer) == have.at(pointer)) continue;
    throw std::invalid_argument(fmt::format(
        "{} {} beside --resume {}: the run was started with {} (its config.json); drop {} to resume it, "
        "or start another run with --out",
        flag, shown(want.at(pointer)), restored.resume, shown(have.at(pointer)), flag));
  }
  if (given.count("--out") && fs::absolute(asked.out) != fs::absolute(asked.resume))
    throw std::invalid_argument(fmt::format("--out {} beside --resume {}: a resumed run stays in its directory",
                                            asked.out, asked.resume));
}

void check_run_store_exists(const std::string& run_dir) {
  fs::path db = fs::path(run_dir) / "run.db";
  std::error_code ec;
  if (!fs::exists(db, ec) || fs::file_size(db, ec) == 0)
    throw std::invalid_argument(fmt::format(
        "--resume {}: {} is {}: the run's evaluations and checkpoints are not there, so resuming would start it "
        "over; start a new run with --out instead",
        run_dir, db.string(), fs::exists(db, ec) ? "empty" : "missing"));
}

int64_t resumed_run_id(const std::string& run_dir, const OptimizeOptions& o, store::RunStore& store) {
  std::string db = (fs::path(run_dir) / "run.db").string();
  auto run = store.latest_run();
  if (!run)
    throw std::invalid_argument(fmt::format("--resume {}: {} holds no run; start a new run with --out instead", run_dir, db));
  auto recorded = nlohmann::json::parse(run->config_json, nullptr, false);
  if (recorded.is_discarded() || !recorded.is_object())
    throw std::invalid_argument(fmt::format("--resume {}: the run record in {} is not readable", run_dir, db));
  auto foreign = [&](const std::string& what) {
    return std::invalid_argument(fmt::format(
        "--resume {}: {} belongs to another run ({}); a run directory's run.db and config.json must come from "
        "the same run",
        run_dir, db, what));
  };
  const std::string uid = recorded.value("run_uid", "");
  if (!o.run_uid.empty() || !uid.empty()) {
    if (uid != o.run_uid)
      throw foreign(fmt::format("its run is {}, config.json's is {}", uid.empty() ? "unnamed" : uid,
                                o.run_uid.empty() ? "unnamed" : o.run_uid));
  } else {  // recorded before runs had an identity: the tasks and the arch must agree
    const nlohmann::json mine = to_json(o);
    for (const char* key : {"tasks", "arch", "agent"})
      if (recorded.value(key, nlohmann::json()) != mine.at(key))
        throw foreign(fmt::format("its {} is {}, config.json's is {}", key, shown(recorded.value(key, nlohmann::json())),
                                  shown(mine.at(key))));
  }
  return run->id;
}

}  // namespace cli
