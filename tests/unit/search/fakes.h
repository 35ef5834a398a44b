// Test doubles for the search loop: agents and an evaluator driven by the kernel text itself.
// A fake kernel is a few "key=value" lines: latency=<ms> and optionally status=<eval status>,
// e.g. "latency=0.5\nid=7". The executor's outputs come from a script function.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>

#include "agents/agent.h"
#include "eval/interrupt.h"
#include "search/kernel_evaluator.h"

namespace search::testing {

inline std::string kernel(double latency, const std::string& tag = "", const std::string& status = "ok") {
  return "latency=" + std::to_string(latency) + "\nstatus=" + status + "\ntag=" + tag + "\n";
}

inline std::string field(const std::string& text, const std::string& key) {
  std::smatch m;
  std::regex re(key + "=([^\\n]*)");
  return std::regex_search(text, m, re) ? m[1].str() : "";
}

class FakeEvaluator : public KernelEvaluator {
 public:
  std::vector<eval::Evaluation> evaluate(const TaskSpec&, const std::vector<std::string>& kernels) override {
    std::vector<eval::Evaluation> out;
    for (const auto& k : kernels) {
      if (fail_after >= 0 && calls >= fail_after) throw std::runtime_error("simulated crash");
      if (interrupt_at >= 0 && calls == interrupt_at) ::raise(SIGINT);  // the caller holds an InterruptGuard
      if (eval::interrupt_requested()) {  // as an executor does: the rest of the batch is cancelled
        eval::Evaluation cancelled;
        cancelled.status = eval::Status::InternalError;
        cancelled.cancelled = true;
        out.push_back(cancelled);
        continue;
      }
      ++calls;
      evaluated.insert(k);
      eval::Evaluation e;
      std::string status = field(k, "status");
      e.status = eval::parse_status(status.empty() ? "compile_error" : status).value_or(eval::Status::CompileError);
      e.correct = e.status == eval::Status::Ok;
      if (e.correct) {
        e.profile = trn::Profile{};
        e.profile->latency = std::stod(field(k, "latency"));
      } else {
        e.diagnostics = {"kernel.py:1:1: error: " + status};
      }
      out.push_back(e);
    }
    return out;
  }
  int calls = 0;
  int fail_after = -1;    // throw once this many kernels were evaluated
  int interrupt_at = -1;  // raise SIGINT (Ctrl-C) when this many kernels were evaluated
  std::set<std::string> evaluated;  // the kernel texts evaluated (not cancelled)
};

class FakePlanner : public agents::Planner {
 public:
  std::vector<agents::Plan> propose(const agents::AgentContext& ctx, const agents::Candidate& c, const agents::Memory&,
                                    int n) override {
    ++calls;
    std::vector<agents::Plan> plans;
    for (int i = 0; i < n; ++i) plans.push_back({"plan " + std::to_string(i), "do thing " + std::to_string(i)});
    return plans;
  }
  std::atomic<int> calls{0};
};

// Writes kernels from script(candidate, plan index, sample); "" is a failed sample.
class FakeExecutor : public agents::Executor {
 public:
  using Script = std::function<std::string(const agents::AgentContext&, const agents::Candidate&, int plan, int sample)>;
  explicit FakeExecutor(Script script) : script_(std::move(script)) {}
  std::vector<agents::KernelDraft> write(const agents::AgentContext& ctx, const agents::Candidate& c,
                                         const agents::Plan& plan, const agents::Memory&, int k) override {
    ++calls;
    int plan_index = std::stoi(plan.title.substr(5));
    std::vector<agents::KernelDraft> drafts;
    for (int s = 0; s < k; ++s) {
      std::string code = script_(ctx, c, plan_index, s);
      drafts.push_back({!code.empty(), code, code.empty() ? "garbage" : code, code.empty() ? "no code" : ""});
    }
    return drafts;
  }
  std::atomic<int> calls{0};

 private:
  Script script_;
};

class FakeSummarizer : public agents::Summarizer {
 public:
  std::optional<agents::ExperienceItem> summarize(const agents::AgentContext&, const agents::RewritePair& pair) override {
    std::lock_guard lock(mutex);
    pairs.push_back(pair);
    agents::ExperienceItem item;
    item.task = pair.task;
    item.round = pair.round;
    item.positive = pair.positive;
    item.speedup = pair.speedup();
    item.plan = pair.plan.title;
    item.key_change = "change";
    item.lesson = "lesson " + std::to_string(pair.speedup());
    return item;
  }
  std::mutex mutex;
  std::vector<agents::RewritePair> pairs;
};

// Repairs a kernel by replacing its status with ok.
class FakeFixer : public agents::Fixer {
 public:
  agents::KernelDraft fix(const agents::AgentContext&, const agents::Plan&, const std::string& code,
                          const agents::Failure& failure, int attempt) override {
    ++calls;
    std::string fixed = std::regex_replace(code, std::regex("status=[a-z_]+"), "status=ok");
    return {true, fixed, fixed, ""};
  }
  std::atomic<int> calls{0};
};

}  // namespace search::testing
