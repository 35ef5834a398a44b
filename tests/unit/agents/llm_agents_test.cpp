#include "agents/llm_agents.h"

#include <functional>
#include <map>
#include <mutex>

#include <gtest/gtest.h>


namespace agents {
namespace {

// A chat client that answers from a function of the user prompt and counts calls.
class FakeChat : public llm::ChatClient {
 public:
  explicit FakeChat(std::function<std::string(const std::string&)> answer) : answer_(std::move(answer)) {}
  llm::ChatResponse chat(const llm::ChatRequest& request) override {
    std::lock_guard lock(mutex_);
    ++calls;
    last_prompt = request.messages.back().content;
    if (fail) throw llm::LlmError(llm::LlmError::Kind::Unavailable, "connection refused");
    llm::ChatResponse response;
    response.text = answer_(last_prompt);
    response.input_tokens = 100;
    response.output_tokens = 10;
    response.cost_usd = 0.25;
    return response;
  }
  int calls = 0;
  bool fail = false;
  std::string last_prompt;

 private:
  std::function<std::string(const std::string&)> answer_;
  std::mutex mutex_;
};

class Journal : public CallJournal {
 public:
  std::optional<CallRecord> find_call(const std::string& hash, int sample) override {
    auto it = calls.find(hash + "#" + std::to_string(sample));
    if (it == calls.end() || !it->second.ok) return std::nullopt;
    return it->second;
  }
  void record_call(const CallRecord& record) override {
    calls[record.request_hash + "#" + std::to_string(record.sample)] = record;
  }
  std::map<std::string, CallRecord> calls;
};

struct Fixture {
  explicit Fixture(std::function<std::string(const std::string&)> answer, CallJournal* journal = nullptr)
      : chat(std::make_shared<FakeChat>(std::move(answer))),
        session(roles(chat), journal),
        agents(make_llm_agents(session, prompts)) {
    task.name = "silu";
    task.reference_text = "def forward(x): return x";
  }
  static std::map<std::string, LlmSession::Role> roles(std::shared_ptr<FakeChat> chat) {
    std::map<std::string, LlmSession::Role> out;
    for (const char* role : {"planner", "executor", "summarizer", "fixer"}) out[role] = {chat, {}};
    return out;
  }
  std::shared_ptr<FakeChat> chat;
  PromptLibrary prompts;
  LlmSession session;
  AgentSet agents;
  TaskInfo task;
  Candidate candidate{"baseline", "@nki.jit\ndef kernel(x): pass\n", 2.0, std::nullopt};
};

TEST(LlmAgents, PlannerPromptCarriesKernelMemoryAndCount) {
  Fixture f([](const std::string&) { return R"([{"title": "a", "plan": "do a"}, {"title": "b", "plan": "do b"}])"; });
  Memory memory(4);
  ExperienceItem item;
  item.lesson = "hoist invariant loads";
  item.key_change = "moved load";
  memory.add(item);
  auto plans = f.agents.planner->propose({f.task, 1, "silu/r1/c0"}, f.candidate, memory, 3);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[1].text, "do b");
  EXPECT_NE(f.chat->last_prompt.find("def kernel(x): pass"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("hoist invariant loads"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("Propose 3 different"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("def forward(x)"), std::string::npos);
}

TEST(LlmAgents, ExecutorWritesKSamplesAndRecordsUnparseableOnes) {
  int n = 0;
  Fixture f([&](const std::string&) { return n++ == 0 ? std::string("```python\nnew kernel\n```") : "garbage"; });
  auto drafts = f.agents.executor->write({f.task, 1, "silu/r1/c0/p0"}, f.candidate, {"t", "plan text"}, Memory(2), 2);
  ASSERT_EQ(drafts.size(), 2u);
  EXPECT_TRUE(drafts[0].ok);
  EXPECT_EQ(drafts[0].code, "new kernel\n");
  EXPECT_FALSE(drafts[1].ok);
  EXPECT_EQ(drafts[1].raw, "garbage");
  EXPECT_NE(f.chat->last_prompt.find("plan text"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("lower precision than the baseline"), std::string::npos) << "rules are part of the prompt";
}

TEST(LlmAgents, FailedCallIsAFailedSampleAndCounted) {
  Fixture f([](const std::string&) { return ""; });
  f.chat->fail = true;
  auto drafts = f.agents.executor->write({f.task, 1, "t"}, f.candidate, {"t", "p"}, Memory(2), 1);
  ASSERT_EQ(drafts.size(), 1u);
  EXPECT_FALSE(drafts[0].ok);
  EXPECT_NE(drafts[0].error.find("connection refused"), std::string::npos);
  EXPECT_EQ(f.session.usage().failed_calls, 1);
}

TEST(LlmAgents, SummarizerBuildsExperienceItem) {
  Fixture f([](const std::string&) { return R"({"key_change": "fused", "lesson": "fuse ops"})"; });
  RewritePair pair;
  pair.task = "silu";
  pair.round = 2;
  pair.positive = false;
  pair.plan = {"Split loops", "..."};
  pair.slow_code = "SLOW", pair.fast_code = "FAST";
  pair.slow_latency_ms = 3, pair.fast_latency_ms = 2;
  auto item = f.agents.summarizer->summarize({f.task, 2, "s0"}, pair);
  ASSERT_TRUE(item);
  EXPECT_EQ(item->lesson, "fuse ops");
  EXPECT_FALSE(item->positive);
  EXPECT_DOUBLE_EQ(item->speedup, 1.5);
  EXPECT_EQ(item->plan, "Split loops");
  EXPECT_NE(f.chat->last_prompt.find("SLOW"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("negative"), std::string::npos);
}

TEST(LlmAgents, FixerSeesDiagnostics) {
  Fixture f([](const std::string&) { return "```python\nfixed\n```"; });
  auto draft = f.agents.fixer->fix({f.task, 1, "t"}, {"p", "p"}, "broken(", {"compile_error", {"k.py:1:7: error: x"}}, 1);
  EXPECT_TRUE(draft.ok);
  EXPECT_EQ(draft.code, "fixed\n");
  EXPECT_NE(f.chat->last_prompt.find("k.py:1:7: error: x"), std::string::npos);
  EXPECT_NE(f.chat->last_prompt.find("broken("), std::string::npos);
}

TEST(LlmSession, ReplaysRecordedAnswersWithoutCallingAndCountsUsage) {
  Journal journal;
  Fixture first([](const std::string&) { return "```python\nk\n```"; }, &journal);
  first.agents.executor->write({first.task, 1, "tag"}, first.candidate, {"t", "p"}, Memory(2), 2);
  EXPECT_EQ(first.chat->calls, 2);
  EXPECT_EQ(first.session.usage().input_tokens, 200);
  EXPECT_DOUBLE_EQ(first.session.usage().cost_usd, 0.5);

  Fixture second([](const std::string&) { return "different"; }, &journal);
  auto drafts = second.agents.executor->write({second.task, 1, "tag"}, second.candidate, {"t", "p"}, Memory(2), 2);
  EXPECT_EQ(second.chat->calls, 0);
  EXPECT_EQ(drafts[1].code, "k\n");
  EXPECT_EQ(second.session.usage().replayed_calls, 2);
  EXPECT_EQ(second.session.usage().output_tokens, 20);

  // Another tag (another round or slot) is a new call.
  second.agents.executor->write({second.task, 2, "other"}, second.candidate, {"t", "p"}, Memory(2), 1);
  EXPECT_EQ(second.chat->calls, 1);
}

TEST(LlmSession, StoppedSessionMakesNoCalls) {
  Fixture f([](const std::string&) { return "x"; });
  f.session.stop();
  auto plans = f.agents.planner->propose({f.task, 1, "t"}, f.candidate, Memory(1), 2);
  EXPECT_TRUE(plans.empty());
  EXPECT_EQ(f.chat->calls, 0);
  EXPECT_EQ(f.session.usage().calls, 0);
}

}  // namespace
}  // namespace agents
