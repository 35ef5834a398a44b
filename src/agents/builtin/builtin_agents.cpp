#include "agents/builtin/builtin_agents.h"

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/experience.h"
#include "agents/builtin/failure_log.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"

namespace agents::builtin {

namespace {

class BuiltinExecutor : public Executor {
 public:
  // One draft whatever `k` is: the rewrite is deterministic, so copies would only spend evaluations.
  std::vector<KernelDraft> write(const AgentContext& ctx, const Candidate& candidate, const Plan& plan, const Memory&,
                                 int k) override {
    KernelDraft draft;
    if (k <= 0) return {};
    auto parsed = parse_plan(plan.text);
    if (!parsed) {
      draft.error = "not a built-in plan (no Transformation:/Parameters: lines)";
      return {draft};
    }
    try {
      // A two-step plan: the enabler first (the planner found the site on its result).
      // Lifted for the run's target, as the planner found the sites (its branch of get_nc_version()).
      const int nc_version = nc_version_of(ctx.task.arch);
      std::string text = parsed->enabler
                             ? apply_site(candidate.kernel_text, *parsed->enabler, ctx.task.kernel_args, "", nc_version)
                             : candidate.kernel_text;
      draft.code = apply_site(text, parsed->site, ctx.task.kernel_args, "", nc_version);
      draft.ok = true;
      draft.raw = plan.title;
    } catch (const RewriteError& e) {
      draft.error = e.what();
    }
    return {draft};
  }
};

class BuiltinSummarizer : public Summarizer {
 public:
  std::optional<ExperienceItem> summarize(const AgentContext&, const RewritePair& pair) override {
    return summarize_pair(pair);
  }
};

// Does not repair: records the failed plan's site so the planner stops proposing it (failure_log.h).
class BuiltinFixer : public Fixer {
 public:
  explicit BuiltinFixer(std::shared_ptr<FailureLog> log) : log_(std::move(log)) {}
  KernelDraft fix(const AgentContext& ctx, const Plan& plan, const std::string&, const Failure&,
                  int attempt) override {
    KernelDraft draft;
    draft.error = "the built-in agent does not repair kernels; the failure is recorded";
    auto parsed = parse_plan(plan.text);
    if (parsed && attempt == 1) log_->record(ctx.task.name, parsed->site);
    return draft;
  }

 private:
  std::shared_ptr<FailureLog> log_;
};

AgentSet make_set(uint64_t seed, bool use_memory) {
  AgentSet set;
  auto failures = std::make_shared<FailureLog>();
  set.planner = std::make_shared<BuiltinPlanner>(seed, use_memory, failures);
  set.fixer = std::make_shared<BuiltinFixer>(failures);
  set.executor = std::make_shared<BuiltinExecutor>();
  set.summarizer = std::make_shared<BuiltinSummarizer>();
  return set;
}

}  // namespace

AgentSet make_builtin_agents(uint64_t seed) { return make_set(seed, true); }
AgentSet make_builtin_agents_without_memory(uint64_t seed) { return make_set(seed, false); }

}  // namespace agents::builtin
