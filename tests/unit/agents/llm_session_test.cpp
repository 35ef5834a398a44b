// The LLM session: usage by agent and model, what a failed call records, the budget gate, and
// --replay from a recorded run's answers; the prompt texts it sends (profile percentages, the
// cacheable prefix).
#include "agents/llm_session.h"

#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "agents/llm_agents.h"
#include "agents/prompt_vars.h"

namespace agents {
namespace {

// Answers with fixed usage; `fail` makes every call fail like an exhausted retry loop.
class ScriptedChat : public llm::ChatClient {
 public:
  llm::ChatResponse chat(const llm::ChatRequest& request) override {
    std::lock_guard lock(mutex);
    ++calls;
    requests.push_back(request);
    if (fail) {
      llm::LlmError error(llm::LlmError::Kind::RateLimited, "m at http://h/v1/chat/completions: HTTP 429 after 3 attempts: slow down");
      error.attempts = 3;
      error.latency_s = 4.5;
      error.http_status = 429;
      error.raw = R"({"error": "slow down"})";
      error.model = "m";
      throw error;
    }
    llm::ChatResponse response;
    for (int i = 0; i < request.n; ++i) response.samples.push_back("answer " + std::to_string(i));
    response.text = response.samples[0];
    response.input_tokens = 1000;
    response.cached_input_tokens = 600;
    response.output_tokens = 100;
    response.cost_usd = cost;
    response.endpoint_model = "m";
    response.attempts = 1;
    return response;
  }
  std::mutex mutex;
  std::vector<llm::ChatRequest> requests;
  int calls = 0;
  bool fail = false;
  double cost = 0.01;
};

class Journal : public CallJournal {
 public:
  std::optional<CallRecord> find_call(const std::string& hash, int sample) override {
    std::lock_guard lock(mutex);
    for (const auto& r : records)
      if (r.ok && r.request_hash == hash && r.sample == sample) return r;
    return std::nullopt;
  }
  void record_call(const CallRecord& record) override {
    std::lock_guard lock(mutex);
    records.push_back(record);
  }
  std::mutex mutex;
  std::vector<CallRecord> records;
};

// A recorded run's answers, looked up like the store does: by request hash, then replay key.
class Recorded : public RecordedAnswers {
 public:
  explicit Recorded(std::vector<CallRecord> calls) : calls_(std::move(calls)) {}
  std::optional<CallRecord> find_recorded(const std::string& hash, const std::string& key, int sample) override {
    for (const auto& c : calls_)
      if (c.request_hash == hash && c.sample == sample) return c;
    for (const auto& c : calls_)
      if (!key.empty() && c.replay_key == key) return c;
    return std::nullopt;
  }
  std::string source() const override { return "runs/recorded"; }

 private:
  std::vector<CallRecord> calls_;
};

std::map<std::string, LlmSession::Role> roles(std::shared_ptr<ScriptedChat> chat, bool n_samples = false) {
  std::map<std::string, LlmSession::Role> out;
  for (const char* role : {"planner", "executor", "summarizer", "fixer"}) {
    llm::EndpointConfig endpoint;
    endpoint.model = std::string("model-") + role;
    endpoint.n_samples = n_samples;
    out[role] = {chat, endpoint};
  }
  return out;
}

CallSpec spec(const std::string& agent, const std::string& tag, const std::string& prompt,
              CallPurpose purpose = CallPurpose::Plain) {
  CallSpec s;
  s.agent = agent;
  s.tag = tag;
  s.user_prompt = prompt;
  s.replay_inputs = {"kernel text"};
  s.purpose = purpose;
  return s;
}

TEST(LlmSession, UsageIsBrokenDownByAgentAndModelWithCachedTokens) {
  auto chat = std::make_shared<ScriptedChat>();
  LlmSession session(roles(chat), nullptr);
  session.call(spec("planner", "t/r1/c0", "plan"));
  session.call(spec("executor", "t/r1/c0/p0", "write"));
  session.call(spec("executor", "t/r1/c0/p1", "write"));
  Usage usage = session.usage();
  EXPECT_EQ(usage.calls, 3);
  EXPECT_EQ(usage.cached_input_tokens, 1800);
  EXPECT_DOUBLE_EQ(usage.cost_usd, 0.03);
  EXPECT_EQ(usage.by_agent.at("executor").calls, 2);
  EXPECT_EQ(usage.by_agent.at("planner").input_tokens, 1000);
  EXPECT_EQ(usage.by_model.at("m").calls, 3);  // the model that answered
  Usage half = usage - session.usage();
  EXPECT_EQ(half.calls, 0);
  EXPECT_TRUE(half.by_agent.empty());
}

// Issue 12, defect 6: failed calls were recorded with attempts 0, latency 0 and no body.
TEST(LlmSession, AFailedCallIsRecordedWithWhatHappened) {
  auto chat = std::make_shared<ScriptedChat>();
  chat->fail = true;
  Journal journal;
  LlmSession session(roles(chat), &journal);
  CallRecord record = session.call(spec("executor", "t/r1/c0/p0/k0", "write"));
  EXPECT_FALSE(record.ok);
  ASSERT_EQ(journal.records.size(), 1u);
  const CallRecord& stored = journal.records[0];
  EXPECT_EQ(stored.error_kind, "rate-limited");
  EXPECT_EQ(stored.attempts, 3);
  EXPECT_DOUBLE_EQ(stored.latency_s, 4.5);
  EXPECT_EQ(stored.http_status, 429);
  EXPECT_EQ(stored.raw, R"({"error": "slow down"})");
  EXPECT_EQ(stored.tag, "t/r1/c0/p0/k0");
  EXPECT_NE(stored.error.find("HTTP 429"), std::string::npos);
  EXPECT_EQ(session.usage().failed_calls, 1);
  EXPECT_NE(session.last_error().find("slow down"), std::string::npos);
}

TEST(LlmSession, KSamplesInOneRequestWhereTheEndpointTakesN) {
  auto chat = std::make_shared<ScriptedChat>();
  Journal journal;
  LlmSession session(roles(chat, /*n_samples=*/true), &journal);
  auto records = session.call_samples(spec("executor", "t/r1/c0/p0", "write"), 3);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(chat->calls, 1);
  EXPECT_EQ(chat->requests[0].n, 3);
  EXPECT_EQ(records[2].text, "answer 2");
  EXPECT_EQ(records[2].sample, 2);
  EXPECT_EQ(records[0].request_hash, records[2].request_hash);
  EXPECT_EQ(session.usage().calls, 1);  // one request, its usage once
  EXPECT_EQ(session.usage().input_tokens, 1000);
  // Resumed: all three samples come from the journal.
  LlmSession resumed(roles(chat, true), &journal);
  auto again = resumed.call_samples(spec("executor", "t/r1/c0/p0", "write"), 3);
  EXPECT_EQ(chat->calls, 1);
  EXPECT_EQ(again[1].text, "answer 1");
  EXPECT_EQ(resumed.usage().replayed_calls, 1);
}

// Issue 14: the request hash left out temperature and max_tokens, so --resume replayed answers
// given under other settings.
TEST(LlmSession, AResumeWithOtherSamplingSettingsAsksAgain) {
  auto chat = std::make_shared<ScriptedChat>();
  Journal journal;
  LlmSession original(roles(chat), &journal);
  original.call(spec("planner", "t/r1/c0", "plan"));
  ASSERT_EQ(chat->calls, 1);
  LlmSession same(roles(chat), &journal);
  EXPECT_EQ(same.call(spec("planner", "t/r1/c0", "plan")).text, "answer 0");
  EXPECT_EQ(chat->calls, 1);  // replayed from the journal
  EXPECT_EQ(same.usage().replayed_calls, 1);
  auto hotter = roles(chat);
  hotter["planner"].endpoint.temperature = 0.2;
  LlmSession resumed_hotter(hotter, &journal);
  resumed_hotter.call(spec("planner", "t/r1/c0", "plan"));
  EXPECT_EQ(chat->calls, 2);
  EXPECT_DOUBLE_EQ(chat->requests.back().temperature, 0.2);
  auto longer = roles(chat);
  longer["planner"].endpoint.max_tokens = 8192;
  LlmSession resumed_longer(longer, &journal);
  resumed_longer.call(spec("planner", "t/r1/c0", "plan"));
  EXPECT_EQ(chat->calls, 3);
  ASSERT_EQ(journal.records.size(), 3u);  // the replayed call is not recorded twice
  EXPECT_NE(journal.records[0].request_hash, journal.records[1].request_hash);
  EXPECT_NE(journal.records[1].request_hash, journal.records[2].request_hash);
}

TEST(LlmSession, ReplayServesRecordedAnswersByRequestOrByWhatWasAsked) {
  auto chat = std::make_shared<ScriptedChat>();
  Journal recording;
  LlmSession original(roles(chat), &recording);
  original.call(spec("planner", "t/r1/c0", "plan this kernel; its latency is 1.0 ms"));
  ASSERT_EQ(recording.records.size(), 1u);

  Recorded recorded(recording.records);
  Journal replay_journal;
  LlmSession replay(roles(nullptr), &replay_journal, &recorded);
  // The same request: served without a client.
  CallRecord same = replay.call(spec("planner", "t/r1/c0", "plan this kernel; its latency is 1.0 ms"));
  EXPECT_TRUE(same.ok);
  EXPECT_EQ(same.text, "answer 0");
  EXPECT_EQ(same.origin, "replay");
  // Another simulator quotes another latency: the same question by its inputs and call site.
  CallRecord judged_anew = replay.call(spec("planner", "t/r1/c0", "plan this kernel; its latency is 0.7 ms"));
  EXPECT_TRUE(judged_anew.ok);
  EXPECT_EQ(judged_anew.text, "answer 0");
  EXPECT_EQ(replay.usage().replayed_calls, 2);
  EXPECT_DOUBLE_EQ(replay.usage().cost_usd, 0.02);  // the recorded answers' cost, accounted again
  EXPECT_EQ(replay_journal.records.size(), 2u);    // the replay is a run of its own
  EXPECT_FALSE(replay.replay_missing());
  // A question the recording never asked is an explicit error naming the call; the session stops.
  CallSpec other = spec("executor", "t/r1/c0/p3/k0", "write");
  other.replay_inputs = {"another kernel"};
  CallRecord missing = replay.call(other);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.error_kind, kNotRecorded);
  ASSERT_TRUE(replay.replay_missing());
  EXPECT_NE(replay.replay_missing()->find("runs/recorded has no recorded answer for the executor call at t/r1/c0/p3/k0"),
            std::string::npos)
      << *replay.replay_missing();
  EXPECT_TRUE(replay.stopped());
  EXPECT_EQ(replay.usage().calls, 2);  // not a call
}

TEST(SpendGate, UsdBudgetAdmitsWhatFitsAndKeepsSummariesBack) {
  auto chat = std::make_shared<ScriptedChat>();
  chat->cost = 0.01;
  Journal journal;
  LlmSession session(roles(chat), &journal);
  session.set_spend_limits({0.055, 0});
  session.set_curation_pairs(8);
  // The first call has nothing to estimate from: it goes alone.
  EXPECT_TRUE(session.call(spec("planner", "t/r1/c0", "plan")).ok);
  // An opening executor call needs room for itself and one summary kept back for its branch:
  // 0.01 spent + 0.01 + 0.01 fits, then 0.02 spent + 0.01 kept + 0.01 + 0.01 fits.
  EXPECT_TRUE(session.call(spec("executor", "t/r1/c0/p0", "w", CallPurpose::OpensPair)).ok);
  EXPECT_TRUE(session.call(spec("executor", "t/r1/c0/p1", "w", CallPurpose::OpensPair)).ok);
  // 0.03 spent + 0.02 kept back + 0.01 + 0.01 > 0.055: refused, recorded as refused, not a call.
  CallRecord refused = session.call(spec("executor", "t/r1/c0/p2", "w", CallPurpose::OpensPair));
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.error_kind, kRefusedByBudget);
  EXPECT_TRUE(session.budget_refused());
  EXPECT_EQ(journal.records.back().error_kind, kRefusedByBudget);
  // A fixer (plain) call may not use the summaries' share either.
  EXPECT_FALSE(session.call(spec("fixer", "t/r1/c0/p0/k0/fix1", "fix")).ok);
  // The two kept-back summaries go through: the pairs paid for reach memory.
  EXPECT_TRUE(session.call(spec("summarizer", "t/r1/s0", "sum", CallPurpose::Curation)).ok);
  EXPECT_TRUE(session.call(spec("summarizer", "t/r1/s1", "sum", CallPurpose::Curation)).ok);
  EXPECT_FALSE(session.call(spec("summarizer", "t/r1/s2", "sum", CallPurpose::Curation)).ok);
  EXPECT_EQ(chat->calls, 5);
  EXPECT_LE(session.usage().cost_usd, 0.055 + 1e-12);
  EXPECT_EQ(session.usage().calls, 5);
}

TEST(SpendGate, CallsInFlightReserveTheirEstimate) {
  // After a planner call of 0.01, four parallel calls of 0.01 against 0.035: two fit with their
  // reservations; the others wait for them and are then refused. Spending never passes the budget.
  auto chat = std::make_shared<ScriptedChat>();
  LlmSession session(roles(chat), nullptr);
  session.set_spend_limits({0.035, 0});
  session.call(spec("planner", "t/r1/c0", "plan"));
  std::vector<std::thread> threads;
  for (int p = 0; p < 4; ++p)
    threads.emplace_back([&session, p] { session.call(spec("executor", "t/r1/c0/p" + std::to_string(p), "w")); });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(chat->calls, 3);
  EXPECT_LE(session.usage().cost_usd, 0.035 + 1e-12);
}

TEST(SpendGate, TokenBudgetHoldsToo) {
  auto chat = std::make_shared<ScriptedChat>();
  LlmSession session(roles(chat), nullptr);
  session.set_spend_limits({0, 2500});  // each call: 1100 tokens
  session.call(spec("planner", "t/r1/c0", "a"));
  session.call(spec("planner", "t/r1/c1", "b"));
  EXPECT_FALSE(session.call(spec("planner", "t/r1/c2", "c")).ok);
  EXPECT_EQ(session.usage().tokens(), 2200);
}

// Issue 12, defect 8: the *_percent fields hold fractions; the prompt said 0.1303 for 13.03%.
TEST(PromptVars, ProfilePercentFieldsArePercentagesAndSaySo) {
  trn::Profile profile;
  profile.latency = 2.0;
  profile.hfu_estimated_percent = 0.1303;
  profile.vector_engine_active_time_percent = 0.5;
  std::string text = format_profile(profile, 0);
  EXPECT_NE(text.find("hfu_estimated_percent: 13.03%"), std::string::npos) << text;
  EXPECT_NE(text.find("vector_engine_active_time_percent: 50.00%"), std::string::npos) << text;
  EXPECT_NE(text.find("percentages, 0 to 100"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.1303"), std::string::npos) << text;
}

TEST(PromptLibrary, TemplatesMarkTheirStablePrefixForCaching) {
  PromptLibrary prompts;
  PromptVars vars = {{"task", "silu"}, {"arch", "trn1"}, {"reference", "REFERENCE"}, {"guide", "GUIDE"},
                     {"rules", "RULES"}, {"kernel", "KERNEL"}, {"profile", "P"}, {"memory", "M"},
                     {"num_plans", "3"}, {"latency", "1 ms"}, {"plan", "PLAN"}};
  for (const char* name : {"planner", "executor"}) {
    RenderedPrompt prompt = prompts.render_prompt(name, vars);
    ASSERT_GT(prompt.cache_prefix, 0u) << name;
    std::string prefix = prompt.text.substr(0, prompt.cache_prefix);
    EXPECT_NE(prefix.find("GUIDE"), std::string::npos) << name;
    EXPECT_NE(prefix.find("REFERENCE"), std::string::npos) << name;
    EXPECT_EQ(prefix.find("KERNEL"), std::string::npos) << name;  // the part that changes comes after
    EXPECT_EQ(prompt.text.find('\x1f'), std::string::npos) << name;
    EXPECT_EQ(prompts.render(name, vars), prompt.text);
  }
}

}  // namespace
}  // namespace agents
