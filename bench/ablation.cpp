// Ablation of the built-in agent (docs/performance/builtin_agent.md, "Ablation"): best speedup
// against evaluations spent, for
//   sampling       every round plans from the baseline only (repeated sampling), no memory
//   no_memory      beam search, the planner ignores memory
//   memory         beam search with the optimization memory (the default agent)
// Each mode runs the real search round (search::run_round) over the tasks one after the other,
// as `accelopt optimize --tasks a,b,c` does: `rounds` rounds per task, one memory carried from
// task to task (memory mode). Candidates are checked with --check-seeds (default 0, the cheap
// search-time check) in this process; identical kernels of a task are evaluated once for all
// modes and seeds (the counts below still charge each mode for every kernel it evaluates, as
// the search does). --seeds runs every mode once per planner seed and adds the figures up.
//
// Figures printed:
//   curve        per mode and seed: cumulative evaluations : geometric-mean best speedup over
//                the tasks (tasks not reached yet count 1.0), after every round
//   per task     final speedup per mode; evaluations no_memory needed to first reach its final
//                speedup on the task, and evaluations memory needed to reach that same speedup
//   budget curve geometric mean over tasks of the best speedup found within the first E
//                evaluations of each task, against the total evaluations that budget costs
//   evaluations-to-reach: total over tasks (and seeds) of the per-task figures above, and the
//                saving of memory against no_memory
//
//   bench_ablation [--tasks silu,adamw] [--rounds 6] [--B 2] [--N 4] [--seeds 1] [--check-seeds 0]
//                  [--bench-root DIR] [--modes no_memory,memory] [--t-pos 1.04] [--t-neg 1.15] [--expn 16]
//                  [--trace 1]
// --t-pos 1 --t-neg 1 makes every outcome a memory item (neutral ones included), which the
// built-in planner reads as "tried, did not help" (experience.h known_no_gain and
// memory_site_weight); --expn is the memory's capacity (16 keeps two rounds of such items, 128
// several tasks). Both apply to every mode; only the memory mode reads the memory.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "agents/builtin/builtin_agents.h"
#include "bench/bench_root.h"
#include "eval/ref_cache.h"
#include "bench/task_case.h"
#include "eval/evaluate.h"
#include "search/round.h"
#include "search/task_loader.h"

namespace {

struct Options {
  std::string tasks = "silu,adamw,rmsnorm_matmul";
  std::string bench_root;  // default: the bundled NKIBench
  int rounds = 6, beam = 2, plans = 4;
  std::vector<uint64_t> seeds = {1};
  std::vector<int> check_seeds = {0};
  bool trace = false;  // --trace 1: every plan of every round and what it gave
  double t_neg = search::SearchParams{}.t_neg;  // slowdown that makes a negative memory item
  double t_pos = search::SearchParams{}.t_pos;  // speedup that makes a positive memory item
  size_t expn = static_cast<size_t>(search::SearchParams{}.expn);  // memory capacity
};

std::vector<std::string> kModes = {"sampling", "no_memory", "memory"};  // --modes narrows it

// Evaluates in this process (no workers), caching by task and kernel text across modes.
class InProcessEvaluator : public search::KernelEvaluator {
 public:
  explicit InProcessEvaluator(std::vector<int> seeds) : seeds_(std::move(seeds)) {}
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
    req.seeds = seeds_;
    req.cache_dir = eval::default_ref_cache_dir();  // the reference outputs never change for a task
    eval::Evaluation e = eval::evaluate(req);
    std::lock_guard lock(mutex_);
    ++fresh;
    return cache_[key] = e;
  }
  std::vector<int> seeds_;
  std::mutex mutex_;
  std::map<std::string, eval::Evaluation> cache_;
};

// One task of one run: (evaluations spent on the task, best speedup so far) after each round.
struct TaskTrace {
  std::vector<std::pair<int64_t, double>> points;  // starts at (0, 1.0)
  double final_speedup() const { return points.back().second; }
  // Evaluations on this task until the best speedup first reached `target` (nullopt: never).
  std::optional<int64_t> evals_to_reach(double target) const {
    for (const auto& [e, s] : points)
      if (s >= target * (1 - 1e-9)) return e;
    return std::nullopt;
  }
  // The best speedup within the first `budget` evaluations (rounds that ended within it).
  double best_within(int64_t budget) const {
    double best = 1.0;
    for (const auto& [e, s] : points)
      if (e <= budget) best = std::max(best, s);
    return best;
  }
  int64_t total() const { return points.back().first; }
};

struct RunTrace {
  std::vector<TaskTrace> tasks;
  std::vector<std::pair<int64_t, double>> curve;  // cumulative evaluations : geomean over tasks
};

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 1.0 : std::exp(s / static_cast<double>(v.size()));
}

RunTrace run_mode(const std::string& mode, uint64_t seed, const std::vector<search::TaskSpec>& tasks,
                  const std::vector<double>& baselines, const Options& o, InProcessEvaluator& evaluator) {
  agents::AgentSet set = mode == "memory" ? agents::builtin::make_builtin_agents(seed)
                                          : agents::builtin::make_builtin_agents_without_memory(seed);
  search::SearchEnv env;
  env.params.beam = o.beam;
  env.params.plans = o.plans;
  env.params.kernels = 1;
  env.params.fixer_attempts = 1;  // as `accelopt optimize`: the built-in fixer logs the failure
  env.params.parallelism = 1;
  env.params.t_neg = o.t_neg;
  env.params.t_pos = o.t_pos;
  env.agents = set;
  env.evaluator = &evaluator;
  agents::Memory memory(o.expn);  // carried from task to task (memory mode only)
  RunTrace trace;
  std::vector<double> best(tasks.size(), 1.0);
  int64_t evaluations = 0;
  trace.curve.push_back({0, 1.0});
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& t = tasks[i];
    search::TaskSpec spec = t;
    spec.info.baseline_latency_ms = baselines[i];
    auto base = evaluator.evaluate(t, {t.info.baseline_text})[0];
    std::vector<agents::Candidate> beam = {{"baseline", t.info.baseline_text, base.latency_ms(), base.profile}};
    TaskTrace task_trace;
    task_trace.points.push_back({0, 1.0});
    int64_t task_evals = 0;
    for (int round = 1; round <= o.rounds; ++round) {
      agents::Memory scratch(o.expn);
      int64_t before = evaluations;
      auto outcome = search::run_round(env, spec, round, beam, mode == "memory" ? memory : scratch, evaluations);
      task_evals += evaluations - before;
      if (o.trace)
        for (const auto& r : outcome.results) {
          double from = beam[r.candidate].latency_ms;
          fmt::print("  {} {} {} r{} c{} [{}] {}\n", mode, seed, t.info.name, round, r.candidate,
                     r.correct ? fmt::format("{:.3f}x", from / r.latency_ms) : r.status,
                     outcome.plans[r.candidate][r.plan].title);
        }
      for (const auto& c : outcome.beam) best[i] = std::max(best[i], baselines[i] / c.latency_ms);
      // Repeated sampling never leaves the baseline.
      if (mode != "sampling") beam = outcome.beam;
      task_trace.points.push_back({task_evals, best[i]});
      trace.curve.push_back({evaluations, geomean(best)});
    }
    trace.tasks.push_back(std::move(task_trace));
  }
  return trace;
}

template <typename T>
std::vector<T> parse_list(const std::string& text) {
  std::vector<T> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(static_cast<T>(std::stoull(item)));
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--tasks") o.tasks = v;
    else if (k == "--rounds") o.rounds = std::stoi(v);
    else if (k == "--B") o.beam = std::stoi(v);
    else if (k == "--N") o.plans = std::stoi(v);
    else if (k == "--seeds" || k == "--seed") o.seeds = parse_list<uint64_t>(v);
    else if (k == "--check-seeds") o.check_seeds = bench::parse_seeds(v);
    else if (k == "--bench-root") o.bench_root = v;
    else if (k == "--trace") o.trace = v == "1";
    else if (k == "--t-neg") o.t_neg = std::stod(v);
    else if (k == "--t-pos") o.t_pos = std::stod(v);
    else if (k == "--expn") o.expn = std::stoul(v);
    else if (k == "--modes") {  // e.g. no_memory,memory (no_memory is needed for the figures)
      kModes.clear();
      std::stringstream ss(v);
      for (std::string m; std::getline(ss, m, ',');) kModes.push_back(m);
    }
    else throw std::invalid_argument("unknown option " + k);
  }
  return o;
}

// Sum over runs and tasks of the evaluations `mode` needed to reach no_memory's final speedup on
// each task; tasks it never reached are charged their whole run and counted in `missed`.
int64_t evals_to_reach_no_memory(const std::map<std::string, std::vector<RunTrace>>& runs, const std::string& mode,
                                 int& missed) {
  int64_t total = 0;
  missed = 0;
  for (size_t s = 0; s < runs.at(mode).size(); ++s)
    for (size_t t = 0; t < runs.at(mode)[s].tasks.size(); ++t) {
      const TaskTrace& tr = runs.at(mode)[s].tasks[t];
      auto reached = tr.evals_to_reach(runs.at("no_memory")[s].tasks[t].final_speedup());
      if (!reached) ++missed;
      total += reached.value_or(tr.total());
    }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    std::vector<std::string> warnings;
    auto tasks = search::load_tasks(o.bench_root.empty() ? bench::default_bench_root() : o.bench_root, o.tasks, "trn1", warnings);
    for (auto& t : tasks) t.seeds = o.check_seeds;
    std::string seeds_text;
    for (auto s : o.seeds) seeds_text += (seeds_text.empty() ? "" : ",") + std::to_string(s);
    std::string check_text;
    for (auto s : o.check_seeds) check_text += (check_text.empty() ? "" : ",") + std::to_string(s);
    fmt::print("tasks {} | rounds {} per task, B {} N {} K 1 | planner seeds {} | check seeds {} | t_pos {} t_neg {} "
               "expn {}\n", o.tasks, o.rounds, o.beam, o.plans, seeds_text, check_text, o.t_pos, o.t_neg, o.expn);
    InProcessEvaluator evaluator(o.check_seeds);
    std::vector<double> baselines;
    for (const auto& t : tasks) {
      auto e = evaluator.evaluate(t, {t.info.baseline_text})[0];
      if (!e.correct) throw std::runtime_error(t.info.name + ": baseline is not correct");
      baselines.push_back(e.latency_ms());
    }
    std::map<std::string, std::vector<RunTrace>> runs;
    for (uint64_t seed : o.seeds)
      for (const auto& mode : kModes) {
        auto start = std::chrono::steady_clock::now();
        runs[mode].push_back(run_mode(mode, seed, tasks, baselines, o, evaluator));
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        fmt::print("{:<10} seed {} ({:.0f} s, {} fresh evaluations so far):", mode, seed, secs, evaluator.fresh);
        for (const auto& [evals, g] : runs[mode].back().curve) fmt::print(" {}:{:.3f}", evals, g);
        fmt::print("\n");
        std::fflush(stdout);
      }

    fmt::print("\nper task (summed over seeds; final = geometric mean over seeds):\n");
    fmt::print("{:<36} {:>9} {:>9} {:>9} {:>14} {:>14}\n", "task", "sampling", "no_mem", "memory", "evals no_mem",
               "evals memory");
    for (size_t t = 0; t < tasks.size(); ++t) {
      std::map<std::string, std::vector<double>> finals;
      int64_t e_nm = 0, e_m = 0;
      int missed = 0;
      for (size_t s = 0; s < o.seeds.size(); ++s) {
        for (const auto& mode : kModes) finals[mode].push_back(runs[mode][s].tasks[t].final_speedup());
        double target = runs["no_memory"][s].tasks[t].final_speedup();
        e_nm += *runs["no_memory"][s].tasks[t].evals_to_reach(target);
        auto m = runs["memory"][s].tasks[t].evals_to_reach(target);
        if (!m) ++missed;
        e_m += m.value_or(runs["memory"][s].tasks[t].total());
      }
      fmt::print("{:<36} {:>8.3f}x {:>8.3f}x {:>8.3f}x {:>14} {:>14}\n", tasks[t].info.name, geomean(finals["sampling"]),
                 geomean(finals["no_memory"]), geomean(finals["memory"]), e_nm,
                 missed ? fmt::format("{} ({} not)", e_m, missed) : std::to_string(e_m));
    }

    // Budget curve: the same per-task evaluation budget for every task.
    int64_t longest = 0;
    for (const auto& [mode, list] : runs)
      for (const auto& r : list)
        for (const auto& t : r.tasks) longest = std::max(longest, t.total());
    fmt::print("\nbudget curve (per-task budget E: total evaluations spent : geomean best speedup over tasks and seeds):\n");
    std::map<std::string, std::vector<std::pair<int64_t, double>>> budget_curves;
    for (const auto& mode : kModes) {
      fmt::print("{:<10}", mode);
      std::pair<int64_t, double> last{-1, 0};
      for (int64_t e = 0; e <= longest; ++e) {
        std::vector<double> speedups;
        int64_t cost = 0;
        for (const auto& r : runs[mode])
          for (const auto& t : r.tasks) {
            speedups.push_back(t.best_within(e));
            cost += std::min(e, t.total());
          }
        std::pair<int64_t, double> point{cost, geomean(speedups)};
        if (point.second > last.second + 1e-12 || e == longest) {
          budget_curves[mode].push_back(point);
          fmt::print(" {}:{:.3f}", point.first, point.second);
        }
        last = point;
      }
      fmt::print("\n");
    }

    std::map<std::string, double> final_geo;
    for (const auto& mode : kModes) {
      std::vector<double> all;
      for (const auto& r : runs[mode])
        for (const auto& t : r.tasks) all.push_back(t.final_speedup());
      final_geo[mode] = geomean(all);
    }
    fmt::print("\nfinal geomean speedup: sampling {:.3f}, no_memory {:.3f}, memory {:.3f}\n", final_geo["sampling"],
               final_geo["no_memory"], final_geo["memory"]);
    int missed_nm = 0, missed_m = 0;
    int64_t a = evals_to_reach_no_memory(runs, "no_memory", missed_nm);
    int64_t b = evals_to_reach_no_memory(runs, "memory", missed_m);
    fmt::print("per task, evaluations to reach no_memory's final speedup (summed): no_memory {}, memory {}{} "
               "({:+.0f}% for memory)\n",
               a, b, missed_m ? fmt::format(" ({} task runs never reached it, charged in full)", missed_m) : "",
               100.0 * (static_cast<double>(b) / static_cast<double>(a) - 1.0));
    // Geomean form: the cheapest per-task budget whose geomean reaches no_memory's final geomean.
    auto cost_to_reach = [&](const std::string& mode) -> std::optional<int64_t> {
      for (const auto& [cost, g] : budget_curves[mode])
        if (g >= final_geo["no_memory"] * (1 - 1e-9)) return cost;
      return std::nullopt;
    };
    auto ca = cost_to_reach("no_memory"), cb = cost_to_reach("memory");
    if (ca && cb)
      fmt::print("budget curve, evaluations to reach no_memory's final geomean {:.3f}: no_memory {}, memory {} ({:+.0f}% for memory)\n",
                 final_geo["no_memory"], *ca, *cb, 100.0 * (static_cast<double>(*cb) / static_cast<double>(*ca) - 1.0));
    else
      fmt::print("budget curve: memory did not reach no_memory's final geomean {:.3f}\n", final_geo["no_memory"]);
    fmt::print("fresh evaluations run: {}\n", evaluator.fresh);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_ablation: {}\n", e.what());
    return 1;
  }
}
