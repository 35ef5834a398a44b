// Loop overhead of the AccelOpt search per round, excluding model and evaluation time: the agents
// answer instantly and the evaluator returns canned profiles, so what is left is the loop itself
// (prompt-free bookkeeping, grouping, curation, selection, checkpoints) plus the run store.
// Published settings: B=6, N=12, K=2 (144 kernels per round), TopK=8, ExpN=16.
//
//   build/bench/bench_search_overhead [--rounds 16] [--repeats 5]
//
// Prints the median time per round with an in-memory journal, with the SQLite run store
// committing each evaluation on its own (how the store was used before batching), and with the
// store as the loop uses it (one transaction per evaluation batch and one per round's history).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <vector>

#include <fmt/core.h>

#include "search/optimizer.h"
#include "search/run_journal.h"
#include "search/store_journal.h"
#include "store/run_store.h"

namespace {

// A kernel text of realistic size (the NKIBench baselines are 2-6 KB).
std::string kernel_text(double latency, const std::string& tag) {
  std::string body = fmt::format("# latency={:.6f} tag={}\n", latency, tag);
  for (int line = 0; line < 60; ++line) body += fmt::format("    x_tile_{} = nl.load(x[r * 128:(r + 1) * 128, :])\n", line);
  return body;
}

double latency_of(const std::string& text) { return std::atof(text.c_str() + std::strlen("# latency=")); }

class InstantPlanner : public agents::Planner {
 public:
  std::vector<agents::Plan> propose(const agents::AgentContext&, const agents::Candidate&, const agents::Memory&, int n) override {
    std::vector<agents::Plan> plans;
    for (int i = 0; i < n; ++i) plans.push_back({fmt::format("plan {}", i), std::string(400, 'p')});
    return plans;
  }
};

class InstantExecutor : public agents::Executor {
 public:
  std::vector<agents::KernelDraft> write(const agents::AgentContext& ctx, const agents::Candidate& c, const agents::Plan& plan,
                                         const agents::Memory&, int k) override {
    std::vector<agents::KernelDraft> drafts;
    unsigned h = static_cast<unsigned>(std::hash<std::string>{}(ctx.tag + plan.title));
    for (int s = 0; s < k; ++s) {
      double factor = 0.85 + 0.3 * ((h >> (s * 4)) % 16) / 15.0;  // 0.85x .. 1.15x of the candidate
      std::string code = kernel_text(latency_of(c.kernel_text) * factor, ctx.tag + std::to_string(s));
      drafts.push_back({true, code, code, ""});
    }
    return drafts;
  }
};

class InstantSummarizer : public agents::Summarizer {
 public:
  std::optional<agents::ExperienceItem> summarize(const agents::AgentContext&, const agents::RewritePair& pair) override {
    agents::ExperienceItem item;
    item.task = pair.task, item.round = pair.round, item.positive = pair.positive, item.speedup = pair.speedup();
    item.key_change = "k", item.lesson = "l", item.slow_code = pair.slow_code, item.fast_code = pair.fast_code;
    return item;
  }
};

// Returns canned profiles at once; the real CachedEvaluator in front of it hashes, deduplicates
// and records every evaluation in the journal, as in a real run.
class CannedExecutor : public eval::Executor {
 public:
  std::vector<eval::Evaluation> run(const std::vector<eval::EvalJob>& jobs, const eval::ProgressFn&) override {
    std::vector<eval::Evaluation> out;
    for (const auto& job : jobs) {
      const std::string& k = job.request.kernel_text;
      eval::Evaluation e;
      e.status = eval::Status::Ok;
      e.correct = true;
      e.profile = trn::Profile{};
      e.profile->latency = latency_of(k);
      out.push_back(e);
    }
    return out;
  }
  void cancel() override {}
};

// Seconds per round of one run of `rounds` rounds.
double seconds_per_round(int rounds, search::RunJournal* journal) {
  search::SearchParams params;  // published defaults
  params.rounds = rounds;
  params.fixer_attempts = 0;
  CannedExecutor executor;
  search::CachedEvaluator evaluator(executor, journal);
  search::BudgetTracker budget({});
  search::SearchEnv env{params,
                        {std::make_shared<InstantPlanner>(), std::make_shared<InstantExecutor>(),
                         std::make_shared<InstantSummarizer>(), nullptr},
                        &evaluator, nullptr, &budget, nullptr};
  search::TaskSpec task;
  task.info.name = "bench";
  task.info.kernel_file_name = "bench_0.py";
  task.info.baseline_text = kernel_text(1.0, "baseline");
  search::RunState state;
  state.memory = agents::Memory(16);
  auto start = std::chrono::steady_clock::now();
  search::Optimizer(env, journal).run({task}, std::move(state));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / rounds;
}

// The store without batching: every evaluation is its own committed transaction.
class PerEvaluationJournal : public search::StoreJournal {
 public:
  using StoreJournal::StoreJournal;
  void record_evaluations(const std::string& task, const std::vector<search::EvaluatedKernel>& batch) override {
    for (const auto& k : batch) record_evaluation(k.key, task, k.kernel_text, k.evaluation);
  }
};

template <typename Journal>
double store_seconds_per_round(int rounds, const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  store::RunStore store((dir / "run.db").string());
  Journal journal(store, store.create_run("bench", "{}"));
  return seconds_per_round(rounds, &journal);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 16, repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--repeats") repeats = std::atoi(argv[i + 1]);
  }
  std::vector<double> memory_runs, unbatched_runs, store_runs;
  auto dir = std::filesystem::temp_directory_path() / fmt::format("accelopt-search-overhead-{}", ::getpid());
  for (int r = 0; r < repeats; ++r) {
    search::MemoryJournal journal;
    memory_runs.push_back(seconds_per_round(rounds, &journal));
    unbatched_runs.push_back(store_seconds_per_round<PerEvaluationJournal>(rounds, dir));
    store_runs.push_back(store_seconds_per_round<search::StoreJournal>(rounds, dir));
  }
  std::filesystem::remove_all(dir);
  double mem = median(memory_runs), unbatched = median(unbatched_runs), sql = median(store_runs);
  fmt::print("search loop overhead, B=6 N=12 K=2 (144 kernels/round), {} rounds, median of {} runs\n", rounds, repeats);
  fmt::print("  in-memory journal                 : {:8.3f} ms/round ({:.1f} us/kernel)\n", mem * 1e3, mem * 1e6 / 144);
  fmt::print("  SQLite, a commit per evaluation   : {:8.3f} ms/round ({:.1f} us/kernel)\n", unbatched * 1e3,
             unbatched * 1e6 / 144);
  fmt::print("  SQLite, a commit per batch (used) : {:8.3f} ms/round ({:.1f} us/kernel)\n", sql * 1e3, sql * 1e6 / 144);
  fmt::print("  per-evaluation / batched          : {:8.2f}x\n", unbatched / sql);
  fmt::print("  batched / in-memory               : {:8.2f}x\n", sql / mem);
  return 0;
}
