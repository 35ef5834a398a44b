#include "agents/llm_agents.h"

#include <fmt/core.h>

#include "agents/prompt_vars.h"
#include "agents/response_parser.h"

namespace agents {

namespace {

constexpr const char* kSystemPrompt =
    "You are an expert performance engineer for AWS Trainium NKI kernels. Follow the requested answer "
    "format exactly.";

// A call of `agent` from `ctx` with the rendered template: the prompt's stable prefix is marked
// for provider caching, and the replay key is the call site plus `inputs` (docs/optimize.md, Replay).
CallSpec spec_for(const std::string& agent, const AgentContext& ctx, const RenderedPrompt& prompt,
                  std::vector<std::string> inputs, CallPurpose purpose = CallPurpose::Plain) {
  CallSpec spec;
  spec.agent = agent;
  spec.tag = ctx.tag;
  spec.site = ctx.site;
  spec.replay_inputs = std::move(inputs);
  spec.system_prompt = kSystemPrompt;
  spec.user_prompt = prompt.text;
  spec.cache_prefix = prompt.cache_prefix;
  spec.purpose = purpose;
  return spec;
}

class LlmPlanner : public Planner {
 public:
  LlmPlanner(LlmSession& session, const PromptLibrary& prompts) : session_(session), prompts_(prompts) {}

  std::vector<Plan> propose(const AgentContext& ctx, const Candidate& candidate, const Memory& memory,
                            int n) override {
    PromptVars vars = common_vars(prompts_, ctx.task);
    vars["kernel"] = candidate.kernel_text;
    vars["profile"] = format_profile(candidate.profile, ctx.task.peak_latency_ms);
    vars["memory"] = format_memory(memory);
    vars["num_plans"] = std::to_string(n);
    CallRecord answer = session_.call(
        spec_for("planner", ctx, prompts_.render_prompt("planner", vars), {candidate.kernel_text, vars["num_plans"]}));
    if (!answer.ok) return {};
    return parse_plans(answer.text, static_cast<size_t>(n));
  }

 private:
  LlmSession& session_;
  const PromptLibrary& prompts_;
};

KernelDraft draft_from(const CallRecord& answer) {
  KernelDraft draft;
  draft.raw = answer.ok ? answer.text : answer.raw;
  if (!answer.ok) {
    draft.error = "model call failed: " + answer.error;
    return draft;
  }
  if (auto code = extract_code(answer.text)) {
    draft.ok = true;
    draft.code = *code;
  } else {
    draft.error = "the answer has no complete fenced python code block";
  }
  return draft;
}

class LlmExecutor : public Executor {
 public:
  LlmExecutor(LlmSession& session, const PromptLibrary& prompts) : session_(session), prompts_(prompts) {}

  std::vector<KernelDraft> write(const AgentContext& ctx, const Candidate& candidate, const Plan& plan,
                                 const Memory& memory, int k) override {
    PromptVars vars = common_vars(prompts_, ctx.task);
    vars["kernel"] = candidate.kernel_text;
    vars["latency"] = format_latency(candidate.latency_ms);
    vars["profile"] = format_profile(candidate.profile, ctx.task.peak_latency_ms);
    vars["memory"] = format_memory(memory);
    vars["plan"] = plan.text;
    // The K samples share one prompt: one request with n = K where the endpoint takes it, else K
    // calls whose tags (/k0, /k1, ...) tell them apart. The first opens the branch for the budget.
    CallSpec spec = spec_for("executor", ctx, prompts_.render_prompt("executor", vars), {candidate.kernel_text, plan.text},
                             CallPurpose::OpensPair);
    std::vector<KernelDraft> drafts;
    for (const auto& answer : session_.call_samples(spec, k)) drafts.push_back(draft_from(answer));
    return drafts;
  }

 private:
  LlmSession& session_;
  const PromptLibrary& prompts_;
};

class LlmSummarizer : public Summarizer {
 public:
  LlmSummarizer(LlmSession& session, const PromptLibrary& prompts) : session_(session), prompts_(prompts) {}

  std::optional<ExperienceItem> summarize(const AgentContext& ctx, const RewritePair& pair) override {
    PromptVars vars = common_vars(prompts_, ctx.task);
    vars["slow_code"] = pair.slow_code;
    vars["fast_code"] = pair.fast_code;
    vars["slow_latency"] = format_latency(pair.slow_latency_ms);
    vars["fast_latency"] = format_latency(pair.fast_latency_ms);
    vars["speedup"] = fmt::format("{:.3f}x", pair.speedup());
    vars["plan"] = pair.plan.title;
    vars["kind"] = pair.positive ? "positive" : "negative";
    vars["kind_explanation"] = pair.positive ? "applying the plan made the kernel faster"
                                             : "applying the plan made the kernel slower; the fast one is the original";
    CallRecord answer = session_.call(spec_for("summarizer", ctx, prompts_.render_prompt("summarizer", vars),
                                               {pair.slow_code, pair.fast_code, pair.plan.title, vars["kind"]},
                                               CallPurpose::Curation));
    if (!answer.ok) return std::nullopt;
    auto summary = parse_summary(answer.text);
    if (!summary) return std::nullopt;
    ExperienceItem item;
    item.task = pair.task;
    item.round = pair.round;
    item.positive = pair.positive;
    item.speedup = pair.speedup();
    item.plan = pair.plan.title;
    item.key_change = summary->key_change;
    item.lesson = summary->lesson;
    item.slow_code = pair.slow_code;
    item.fast_code = pair.fast_code;
    return item;
  }

 private:
  LlmSession& session_;
  const PromptLibrary& prompts_;
};

class LlmFixer : public Fixer {
 public:
  LlmFixer(LlmSession& session, const PromptLibrary& prompts) : session_(session), prompts_(prompts) {}

  KernelDraft fix(const AgentContext& ctx, const Plan& plan, const std::string& code, const Failure& failure,
                  int attempt) override {
    PromptVars vars = common_vars(prompts_, ctx.task);
    vars["plan"] = plan.title;
    vars["kernel"] = code;
    vars["status"] = failure.status;
    std::string diagnostics;
    for (const auto& d : failure.diagnostics) diagnostics += d + "\n";
    vars["diagnostics"] = diagnostics.empty() ? "(none)" : diagnostics;
    AgentContext fix_ctx{ctx.task, ctx.round, fmt::format("{}/fix{}", ctx.tag, attempt),
                         fmt::format("{}/fix{}", ctx.site.empty() ? ctx.tag : ctx.site, attempt)};
    return draft_from(session_.call(spec_for("fixer", fix_ctx, prompts_.render_prompt("fixer", vars),
                                             {plan.title, code, failure.status})));
  }

 private:
  LlmSession& session_;
  const PromptLibrary& prompts_;
};

}  // namespace

AgentSet make_llm_agents(LlmSession& session, const PromptLibrary& prompts) {
  return {std::make_shared<LlmPlanner>(session, prompts), std::make_shared<LlmExecutor>(session, prompts),
          std::make_shared<LlmSummarizer>(session, prompts), std::make_shared<LlmFixer>(session, prompts)};
}

}  // namespace agents
