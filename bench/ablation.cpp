// Ablation of the built-in agent (docs/performance/builtin_agent.md): best geometric-mean speedup
// over the baselines against evaluations spent, for
//   sampling       every round plans from the baseline only (repeated sampling), no memory
//   no_memory      beam search, the planner ignores memory
//   memory         beam search with the optimization memory (the default agent)
// Each mode runs the real search round (search::run_round) with an in-process evaluator.
//
//   bench_ablation [--tasks silu,adamw] [--rounds 6] [--B 2] [--N 4] [--seed 1] [--eval-seeds 1]
//                  [--bench-root DIR]
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/core.h>

#include "agents/builtin/builtin_agents.h"
#include "bench/bench_root.h"
#include "eval/evaluate.h"
#include "search/round.h"
#include "search/task_loader.h"

namespace {

struct Options {
  std::string tasks = "silu,adamw,rmsnorm_matmul";
  std::string bench_root;  // default: the bundled NKIBench
  int rounds = 6, beam = 2, plans = 4, eval_seeds = 1;
  uint64_t seed = 1;
};

// Evaluates in this process (no workers), caching by kernel text: identical rewrites are free.
class InProcessEvaluator : public search::KernelEvaluator {
 public:
  explicit InProcessEvaluator(int seeds) : seeds_(seeds) {}
  std::vector<eval::Evaluation> evaluate(const search::TaskSpec& task, const std::vector<std::string>& kernels) override {
    std::vector<eval::Evaluation> out;
    for (const auto& k : kernels) out.push_back(one(task, k));
    return out;
  }
  int64_t fresh = 0;  // evaluations actually run

 private:
  eval::Evaluation one(const search::TaskSpec& task, const std::string& kernel) {
    std::string key = task.info.name + "\n" + kernel;
    {
      std::lock_guard lock(mutex_);
      if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    }
    eval::EvalRequest req;
    req.kernel_text = kernel;
    req.reference_text = task.info.reference_text;
    req.kernel_path = task.baseline_path;
    req.reference_path = task.reference_path;
    req.arch = task.info.arch;
    req.tolerance = task.tolerance;
    req.seeds.assign(task.seeds.begin(), task.seeds.begin() + std::min<size_t>(seeds_, task.seeds.size()));
    eval::Evaluation e = eval::evaluate(req);
    std::lock_guard lock(mutex_);
    ++fresh;
    return cache_[key] = e;
  }
  int seeds_;
  std::mutex mutex_;
  std::map<std::string, eval::Evaluation> cache_;
};

struct Curve {
  std::vector<std::pair<int64_t, double>> points;  // (evaluations, geomean speedup)
};

Curve run_mode(const std::string& mode, const std::vector<search::TaskSpec>& tasks, const Options& o) {
  agents::AgentSet set = mode == "memory" ? agents::builtin::make_builtin_agents(o.seed)
                                          : agents::builtin::make_builtin_agents_without_memory(o.seed);
  InProcessEvaluator evaluator(o.eval_seeds);
  search::SearchEnv env;
  env.params.beam = o.beam;
  env.params.plans = o.plans;
  env.params.kernels = 1;
  env.params.fixer_attempts = 0;
  env.params.parallelism = 1;
  env.agents = set;
  env.evaluator = &evaluator;
  agents::Memory memory(16);
  std::vector<std::vector<agents::Candidate>> beams;
  std::vector<double> base, best;
  for (const auto& t : tasks) {
    auto e = evaluator.evaluate(t, {t.info.baseline_text})[0];
    if (!e.correct) throw std::runtime_error(t.info.name + ": baseline is not correct");
    agents::Candidate c{"baseline", t.info.baseline_text, e.latency_ms(), e.profile};
    beams.push_back({c});
    base.push_back(c.latency_ms);
    best.push_back(c.latency_ms);
  }
  Curve curve;
  int64_t evaluations = 0;
  auto geomean = [&] {
    double s = 0;
    for (size_t i = 0; i < tasks.size(); ++i) s += std::log(base[i] / best[i]);
    return std::exp(s / static_cast<double>(tasks.size()));
  };
  curve.points.push_back({0, 1.0});
  for (int round = 1; round <= o.rounds; ++round) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      // Repeated sampling never leaves the baseline (its beam is never replaced below).
      agents::Memory scratch(16);
      auto outcome = search::run_round(env, tasks[i], round, beams[i], mode == "memory" ? memory : scratch, evaluations);
      for (const auto& c : outcome.beam) best[i] = std::min(best[i], c.latency_ms);
      if (mode != "sampling") beams[i] = outcome.beam;
      curve.points.push_back({evaluations, geomean()});
    }
  }
  return curve;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--tasks") o.tasks = v;
    else if (k == "--rounds") o.rounds = std::stoi(v);
    else if (k == "--B") o.beam = std::stoi(v);
    else if (k == "--N") o.plans = std::stoi(v);
    else if (k == "--seed") o.seed = std::stoull(v);
    else if (k == "--eval-seeds") o.eval_seeds = std::stoi(v);
    else if (k == "--bench-root") o.bench_root = v;
    else throw std::invalid_argument("unknown option " + k);
  }
  return o;
}

// Evaluations the curve needed to first reach `target` (-1 if never).
int64_t evals_to_reach(const Curve& c, double target) {
  for (const auto& [evals, g] : c.points)
    if (g >= target - 1e-9) return evals;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    std::vector<std::string> warnings;
    auto tasks = search::load_tasks(o.bench_root.empty() ? bench::default_bench_root() : o.bench_root, o.tasks, "trn1", warnings);
    fmt::print("tasks {} | rounds {} B {} N {} K 1 | seed {} | eval seeds {}\n", o.tasks, o.rounds, o.beam, o.plans,
               o.seed, o.eval_seeds);
    std::map<std::string, Curve> curves;
    for (const char* mode : {"sampling", "no_memory", "memory"}) {
      auto start = std::chrono::steady_clock::now();
      curves[mode] = run_mode(mode, tasks, o);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("{:<10} ({:.0f} s):", mode, secs);
      for (const auto& [evals, g] : curves[mode].points) fmt::print(" {}:{:.3f}", evals, g);
      fmt::print("\n");
    }
    double final_no_memory = curves["no_memory"].points.back().second;
    int64_t a = evals_to_reach(curves["no_memory"], final_no_memory), b = evals_to_reach(curves["memory"], final_no_memory);
    fmt::print("final geomean speedup: sampling {:.3f}, no_memory {:.3f}, memory {:.3f}\n",
               curves["sampling"].points.back().second, final_no_memory, curves["memory"].points.back().second);
    if (b >= 0)
      fmt::print("evaluations to reach no_memory's final {:.3f}: no_memory {}, memory {} ({:.0f}% fewer)\n",
                 final_no_memory, a, b, 100.0 * (1.0 - static_cast<double>(b) / static_cast<double>(a)));
    else
      fmt::print("memory did not reach no_memory's final {:.3f} within the budget\n", final_no_memory);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_ablation: {}\n", e.what());
    return 1;
  }
}
