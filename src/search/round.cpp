#include "search/round.h"

#include <algorithm>
#include <mutex>
#include <set>

#include <fmt/core.h>

#include "base/plural.h"
#include "eval/interrupt.h"
#include "search/grouping.h"
#include "search/parallel.h"

namespace search {

namespace {

// Statuses the fixer can act on: the kernel ran through the harness and failed it.
bool is_fixable(const std::string& status) {
  static const std::set<std::string> fixable = {"compile_error", "runtime_error", "incorrect", "timeout",
                                                "resource_error", "lower_precision"};
  return fixable.count(status) > 0;
}

class Round {
 public:
  Round(const SearchEnv& env, const TaskSpec& task, int round, const std::vector<agents::Candidate>& beam,
        agents::Memory& memory, int64_t& evaluations)
      : env_(env), task_(task), round_(round), beam_(beam), memory_(memory), evaluations_(evaluations) {
    stats_.task = task.info.name;
    stats_.round = round;
    stats_.candidates = static_cast<int>(beam.size());
    if (env.session) {
      env.session->clear_budget_refused();
      // The budget gate keeps a summary back for each branch the executors open (spend_gate.h).
      env.session->set_curation_pairs(env.params.topk);
    }
  }

  RoundOutcome run() {
    // A phase whose every model call failed ends the round, which is then not kept (the calls
    // are made again on resume): an outage must not cost a round.
    if (phase(&Round::plan, "planning") && phase(&Round::write, "writing")) {
      evaluate_pending();
      if (repair()) phase(&Round::curate, "summarizing");
    }
    if (env_.session) env_.session->set_curation_pairs(0);
    return finish();
  }

 private:
  // `tag` names the call site; `site` is the same without the candidate's or pair's rank.
  agents::AgentContext context(const std::string& tag, const std::string& site) const {
    return {task_.info, round_, fmt::format("{}/r{}/{}", task_.info.name, round_, tag),
            fmt::format("{}/r{}/{}", task_.info.name, round_, site)};
  }

  // Runs one phase; false (and the round is not kept) when every model call it made failed, or a
  // replay found no recorded answer.
  bool phase(void (Round::*step)(), const char* name) {
    agents::Usage before = env_.session ? env_.session->usage() : agents::Usage{};
    (this->*step)();
    return phase_ok(before, name);
  }

  bool phase_ok(const agents::Usage& before, const char* name) {
    if (!env_.session || !keep_) return keep_;
    if (auto missing = env_.session->replay_missing()) {
      stop_ = StopReason::ReplayMissing;
      stop_message_ = "replay: " + *missing;
      keep_ = false;
      return false;
    }
    agents::UsageTotals spent = env_.session->usage().totals() - before.totals();
    if (spent.calls > 0 && spent.failed_calls == spent.calls) {
      stop_ = StopReason::AllCallsFailed;
      stop_message_ = fmt::format(
          "every model call of the {} phase of round {} of {} failed ({}); the last error: {}\n"
          "The round is not kept: fix the cause, then --resume makes these calls again",
          name, round_, task_.info.name, base::count_of(spent.calls, "call"), env_.session->last_error());
      env_.session->stop();
      keep_ = false;
      return false;
    }
    return true;
  }

  // Checks the budgets; once one is exhausted, no new phase starts and the reason is kept. A
  // USD or token budget stops calls at the budget gate (which keeps summaries back for the pairs
  // paid for); time and Ctrl-C stop every call.
  bool over_budget() {
    if (stop_ != StopReason::None) return true;
    if (eval::interrupt_requested()) {  // Ctrl-C / SIGTERM: end the round like a budget stop
      cancel();
      return true;
    }
    if (env_.session && env_.session->budget_refused() && env_.budget) {
      stop_ = env_.budget->gate_reason();
      stop_message_ = fmt::format("{} reached in round {} of {} (the next model call would pass it)",
                                  to_string(stop_), round_, task_.info.name);
      return true;
    }
    agents::Usage usage = env_.session ? env_.session->usage() : agents::Usage{};
    if (auto reason = env_.budget ? env_.budget->exhausted(usage, evaluations_) : std::nullopt) {
      stop_ = *reason;
      stop_message_ = fmt::format("{} reached in round {} of {}", to_string(*reason), round_, task_.info.name);
      if (env_.session && *reason == StopReason::BudgetTime) env_.session->stop();
      return true;
    }
    return false;
  }

  // Ctrl-C / SIGTERM: the round stops and is not kept (the optimizer drops it); a resumed run
  // runs it again from the start, with the planner's state from before it.
  void cancel() {
    stop_ = StopReason::Cancelled;
    stop_message_ = fmt::format("interrupted in round {} of {}; --resume continues", round_, task_.info.name);
    if (env_.session) env_.session->stop();
  }

  // Time and Ctrl-C stop every model call, the summaries of the round's pairs included (checked
  // afresh: another budget may have stopped the round before).
  bool hard_stopped() {
    if (stop_ == StopReason::None) over_budget();
    if (eval::interrupt_requested()) {
      cancel();
    } else if (env_.budget && env_.budget->exhausted({}, 0) == StopReason::BudgetTime) {
      stop_ = StopReason::BudgetTime;
      stop_message_ = fmt::format("{} reached in round {} of {}", to_string(stop_), round_, task_.info.name);
    }
    bool hard = stop_ == StopReason::Cancelled || stop_ == StopReason::BudgetTime;
    if (hard && env_.session) env_.session->stop();
    return hard;
  }

  void update(const std::function<void(RoundStats&)>& change) {
    std::lock_guard lock(mutex_);
    change(stats_);
    if (env_.session) stats_.usage = env_.session->usage();
    stats_.evaluations = evaluations_;
    if (env_.observer) env_.observer->on_round_update(stats_);
  }

  void plan() {
    plans_.assign(beam_.size(), {});
    if (over_budget()) return;
    int threads = env_.agents.planner->proposes_in_order() ? 1 : env_.params.parallelism;
    std::vector<std::optional<agents::BoundStop>> bounds(beam_.size());
    parallel_for(beam_.size(), threads, [&](size_t c) {
      auto ctx = context(fmt::format("c{}", c), "plan");
      bounds[c] = env_.agents.planner->at_bound(ctx, beam_[c]);
      if (bounds[c]) return;  // nothing to propose: the candidate is at a bound
      auto plans = env_.agents.planner->propose(ctx, beam_[c], memory_, env_.params.plans);
      update([&](RoundStats& s) { s.plans += static_cast<int>(plans.size()); });
      plans_[c] = std::move(plans);
    });
    // No plan at all, and a candidate (the best one that is) at a bound: the task is done.
    if (stats_.plans > 0) return;
    for (size_t c = 0; c < bounds.size(); ++c) {
      if (!bounds[c]) continue;
      stop_ = bounds[c]->kind == agents::BoundStop::Kind::AtDmaFloor ? StopReason::AtDmaFloor : StopReason::NearPeak;
      stop_message_ = fmt::format("{}: {}", agents::to_string(bounds[c]->kind), bounds[c]->detail);
      update([&](RoundStats& s) {
        s.stop = stop_;
        s.stop_message = stop_message_;
      });
      return;
    }
    // No plan and no bound: the round line says why, per candidate.
    std::string why;
    for (size_t c = 0; c < beam_.size(); ++c) {
      std::string reason = env_.agents.planner->why_no_plan(beam_[c]);
      why += fmt::format("{}c{}: {}", c == 0 ? "" : "; ", c, reason.empty() ? "the planner proposed none" : reason);
    }
    update([&](RoundStats& s) { s.no_plan_reason = why; });
  }

  void write() {
    std::vector<std::pair<size_t, size_t>> branches;
    for (size_t c = 0; c < plans_.size(); ++c)
      for (size_t p = 0; p < plans_[c].size(); ++p) branches.push_back({c, p});
    std::vector<std::vector<agents::KernelDraft>> drafts(branches.size());
    if (!over_budget()) {
      parallel_for(branches.size(), env_.params.parallelism, [&](size_t b) {
        auto [c, p] = branches[b];
        drafts[b] = env_.agents.executor->write(context(fmt::format("c{}/p{}", c, p), fmt::format("p{}", p)), beam_[c],
                                                plans_[c][p], memory_, env_.params.kernels);
        int ok = 0;
        for (const auto& d : drafts[b]) ok += d.ok ? 1 : 0;
        update([&](RoundStats& s) {
          s.kernels_written += ok;
          s.kernels_unparsed += static_cast<int>(drafts[b].size()) - ok;
          s.expected += ok;
        });
      });
    }
    for (size_t b = 0; b < branches.size(); ++b) add_results(branches[b], drafts[b]);
  }

  void add_results(std::pair<size_t, size_t> branch, const std::vector<agents::KernelDraft>& drafts) {
    for (size_t k = 0; k < drafts.size(); ++k) {
      KernelResult r;
      r.candidate = branch.first, r.plan = branch.second, r.sample = static_cast<int>(k);
      r.id = fmt::format("r{}.c{}.p{}.k{}", round_, branch.first, branch.second, k);
      r.code = drafts[k].code;
      r.status = drafts[k].ok ? "pending" : "no_code";
      if (!drafts[k].ok) r.diagnostics = {drafts[k].error};
      results_.push_back(std::move(r));
    }
  }

  // Evaluates every result with status "pending", within the evaluation budget.
  void evaluate_pending() {
    std::vector<size_t> todo;
    for (size_t i = 0; i < results_.size(); ++i)
      if (results_[i].status == "pending") todo.push_back(i);
    if (todo.empty()) return;
    over_budget();  // a time or USD stop still evaluates what was paid for; an eval stop does not
    int64_t allowed = env_.budget ? env_.budget->evaluations_left(evaluations_) : INT64_MAX;
    if (stop_ == StopReason::BudgetTime) allowed = 0;
    if (static_cast<int64_t>(todo.size()) > allowed) {
      for (size_t i = static_cast<size_t>(allowed); i < todo.size(); ++i) results_[todo[i]].status = "not_evaluated";
      todo.resize(static_cast<size_t>(allowed));
    }
    std::vector<std::string> kernels;
    for (size_t i : todo) kernels.push_back(results_[i].code);
    update([&](RoundStats& s) { s.running = static_cast<int>(kernels.size()); });
    auto arrived = [&](const eval::Evaluation& e) {
      update([&](RoundStats& s) {
        s.running = std::max(0, s.running - 1);
        s.batch_done++;
        if (!(e.correct && e.status == eval::Status::Ok)) s.batch_failed++;
      });
    };
    auto evaluations = kernels.empty() ? std::vector<eval::Evaluation>{} : env_.evaluator->evaluate(task_, kernels, arrived);
    for (size_t j = 0; j < todo.size() && j < evaluations.size(); ++j) apply(results_[todo[j]], evaluations[j]);
    evaluations_ += static_cast<int64_t>(todo.size());
    // An evaluation cut short (Ctrl-C reached the executor) is not a result: the round is not kept.
    bool cut = std::any_of(evaluations.begin(), evaluations.end(), [](const auto& e) { return e.cancelled; });
    if (cut || eval::interrupt_requested()) cancel();
    update([](RoundStats& s) { s.running = s.batch_done = s.batch_failed = 0; });
  }

  void apply(KernelResult& r, const eval::Evaluation& e) {
    r.status = eval::to_string(e.status);
    r.correct = e.correct && e.status == eval::Status::Ok && e.latency_ms() > 0;
    r.latency_ms = e.latency_ms();
    r.profile = e.profile;
    r.diagnostics = e.diagnostics;
    std::lock_guard lock(mutex_);
    stats_.evaluated++;
    stats_.attempted++;
    if (r.correct) {
      stats_.correct++;
      if (r.fix_attempts > 0) stats_.fixed++;
    } else {
      stats_.eval_failed++;
    }
  }

  // Up to F rounds of repair: every kernel that failed the harness goes back to the fixer with
  // its diagnostics, and the repaired kernels are evaluated again.
  // False when the round must not be kept (a phase failed whole).
  bool repair() {
    if (!env_.agents.fixer) return true;
    for (int attempt = 1; attempt <= env_.params.fixer_attempts; ++attempt) {
      std::vector<size_t> failing;
      for (size_t i = 0; i < results_.size(); ++i)
        if (is_fixable(results_[i].status) && results_[i].fix_attempts == attempt - 1) failing.push_back(i);
      if (failing.empty() || over_budget()) return true;
      agents::Usage before = env_.session ? env_.session->usage() : agents::Usage{};
      parallel_for(failing.size(), env_.params.parallelism, [&](size_t f) { fix_one(results_[failing[f]], attempt); });
      if (!phase_ok(before, "repair")) return false;
      evaluate_pending();
    }
    return true;
  }

  void fix_one(KernelResult& r, int attempt) {
    const auto& plan = plans_[r.candidate][r.plan];
    agents::Failure failure{r.status, r.diagnostics};
    auto ctx = context(fmt::format("c{}/p{}/k{}", r.candidate, r.plan, r.sample), fmt::format("p{}/k{}", r.plan, r.sample));
    agents::KernelDraft draft = env_.agents.fixer->fix(ctx, plan, r.code, failure, attempt);
    if (!draft.ok) return;  // the failed kernel stays as it was
    r.replaced_codes.push_back(std::move(r.code));
    r.code = draft.code;
    r.fix_attempts = attempt;
    r.status = "pending";
    std::lock_guard lock(mutex_);
    stats_.evaluated--;      // the failed attempt is replaced by the repaired kernel's evaluation
    stats_.eval_failed--;
    stats_.expected++;
  }

  // Rewrite pairs -> summarizer -> memory. The largest speedups are summarized; the items enter
  // the memory smallest first, so the round's most telling item ends up the newest.
  void curate() {
    auto pairs = find_rewrites(beam_, plans_, results_, env_.params.t_pos, env_.params.t_neg, task_.info.name, round_);
    for (const auto& pair : pairs) (pair.positive ? stats_.positive_pairs : stats_.negative_pairs)++;
    auto chosen = top_pairs(std::move(pairs), static_cast<size_t>(env_.params.topk));
    std::vector<std::optional<agents::ExperienceItem>> items(chosen.size());
    // Summarized even after a USD, token or evaluation budget stop: the pairs were paid for,
    // and the budget gate kept their summaries back (spend_gate.h).
    if (!chosen.empty() && !hard_stopped() && env_.agents.summarizer) {
      parallel_for(chosen.size(), env_.params.parallelism, [&](size_t i) {
        items[i] = env_.agents.summarizer->summarize(context(fmt::format("s{}", i), "summary"), chosen[i]);
      });
    }
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (!*it) continue;
      memory_.add(**it);
      new_items_.insert(new_items_.begin(), **it);
    }
    stats_.memory_items = static_cast<int>(memory_.size());
  }

  RoundOutcome finish() {
    RoundOutcome out;
    if (eval::interrupt_requested()) cancel();  // arrived after the last check: the round is redone
    out.beam = select_beam(beam_, results_, static_cast<size_t>(env_.params.beam));
    stats_.best_latency_ms = out.beam.empty() ? 0 : out.beam.front().latency_ms;
    if (env_.session) stats_.usage = env_.session->usage();
    stats_.evaluations = evaluations_;
    if (keep_ && env_.session && env_.session->budget_refused()) over_budget();  // refused in the last phase
    out.keep = keep_;
    out.stats = stats_;
    out.plans = plans_;
    out.results = std::move(results_);
    out.new_items = std::move(new_items_);
    out.stop = stop_;
    out.stop_message = stop_message_;
    return out;
  }

  const SearchEnv& env_;
  const TaskSpec& task_;
  int round_;
  const std::vector<agents::Candidate>& beam_;
  agents::Memory& memory_;
  int64_t& evaluations_;
  std::mutex mutex_;
  RoundStats stats_;
  std::vector<std::vector<agents::Plan>> plans_;
  std::vector<KernelResult> results_;
  std::vector<agents::ExperienceItem> new_items_;
  StopReason stop_ = StopReason::None;
  std::string stop_message_;
  bool keep_ = true;
};

}  // namespace

RoundOutcome run_round(const SearchEnv& env, const TaskSpec& task, int round, const std::vector<agents::Candidate>& beam,
                       agents::Memory& memory, int64_t& evaluations) {
  return Round(env, task, round, beam, memory, evaluations).run();
}

}  // namespace search
