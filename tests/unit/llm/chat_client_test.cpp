// The chat clients against the scripted fake server (tests/support): wire format, usage and
// cost, retries, Retry-After, timeouts, bad answers, the shared concurrency limit, cancellation.
#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/client.h"
#include "support/fake_llm_server.h"

namespace {

using Clock = std::chrono::steady_clock;
using Kind = llm::LlmError::Kind;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class ChatClientTest : public ::testing::Test {
 protected:
  // Starts the fake server with `yaml` as its script.
  void serve(const std::string& yaml) {
    server_ = std::make_unique<fake_llm::FakeLlmServer>(fake_llm::parse_script(yaml, "test-script", ""));
    server_->start();
  }

  llm::EndpointConfig endpoint(const std::string& api = "openai") {
    llm::EndpointConfig config;
    config.api = api;
    config.url = server_->url();
    config.model = "fake-model";
    config.backoff_initial_s = 0.01;
    config.backoff_max_s = 0.05;
    config.jitter_seed = 7;
    config.timeout_s = 5;
    config.max_retries = 3;
    return config;
  }

  static llm::ChatRequest ask(const std::string& user, const std::string& system = "") {
    llm::ChatRequest request;
    if (!system.empty()) request.messages.push_back({"system", system});
    request.messages.push_back({"user", user});
    return request;
  }

  // The error kind of a call that must fail.
  static Kind failure_kind(llm::ChatClient& client, const llm::ChatRequest& request) {
    try {
      client.chat(request);
    } catch (const llm::LlmError& error) {
      return error.kind;
    }
    ADD_FAILURE() << "the call succeeded";
    return Kind::Cancelled;
  }

  std::unique_ptr<fake_llm::FakeLlmServer> server_;
};

TEST_F(ChatClientTest, OpenAiCallSendsBearerKeyAndReturnsTextUsageAndCost) {
  serve(R"(rules: [{replies: [{text: "plan A", usage: {input_tokens: 1200, output_tokens: 300}}]}])");
  setenv("ACCELOPT_TEST_KEY", "sk-secret", 1);
  auto config = endpoint();
  config.api_key_env = "ACCELOPT_TEST_KEY";
  config.usd_per_mtok_in = 2.5;
  config.usd_per_mtok_out = 10;
  config.temperature = 0.3;
  auto response = llm::make_client(config)->chat(ask("optimize this", "you are a planner"));

  EXPECT_EQ(response.text, "plan A");
  EXPECT_EQ(response.input_tokens, 1200);
  EXPECT_EQ(response.output_tokens, 300);
  EXPECT_DOUBLE_EQ(response.cost_usd, (1200 * 2.5 + 300 * 10) / 1e6);
  EXPECT_EQ(response.attempts, 1);
  EXPECT_EQ(response.finish_reason, "stop");
  EXPECT_NE(response.raw.find("chat.completion"), std::string::npos);

  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer sk-secret");
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "fake-model");
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  EXPECT_EQ(body["max_tokens"], 4096);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
}

TEST_F(ChatClientTest, AnthropicCallPutsSystemPromptTopLevelAndReadsItsUsage) {
  serve(R"(rules: [{api: anthropic, replies: [{text: "kernel", usage: {input_tokens: 50, output_tokens: 7}}]}])");
  setenv("ACCELOPT_TEST_KEY", "ak-secret", 1);
  auto config = endpoint("anthropic");
  config.api_key_env = "ACCELOPT_TEST_KEY";
  auto request = ask("rewrite", "you are an executor");
  request.max_tokens = 99;
  auto response = llm::make_client(config)->chat(request);

  EXPECT_EQ(response.text, "kernel");
  EXPECT_EQ(response.input_tokens, 50);
  EXPECT_EQ(response.output_tokens, 7);
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers["x-api-key"], "ak-secret");
  EXPECT_EQ(requests[0].headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["system"], "you are an executor");
  EXPECT_EQ(body["max_tokens"], 99);
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
}

TEST_F(ChatClientTest, MissingKeyVariableFailsAsAuthWithoutSendingAndWithoutLeakingKeys) {
  serve(R"(rules: [{replies: [{text: "x"}]}])");
  unsetenv("ACCELOPT_TEST_UNSET_KEY");
  auto config = endpoint();
  config.api_key_env = "ACCELOPT_TEST_UNSET_KEY";
  auto client = llm::make_client(config);
  try {
    client->chat(ask("hi"));
    FAIL() << "expected an Auth error";
  } catch (const llm::LlmError& error) {
    EXPECT_EQ(error.kind, Kind::Auth);
    EXPECT_NE(std::string(error.what()).find("ACCELOPT_TEST_UNSET_KEY"), std::string::npos);
  }
  EXPECT_EQ(server_->stats().requests, 0);
}

TEST_F(ChatClientTest, RateLimitIsRetriedAfterTheServersRetryAfter) {
  serve(R"(rules: [{replies: [{status: 429, retry_after: "0.3"}, {text: "ok"}]}])");
  auto config = endpoint();
  config.backoff_initial_s = 0.001;  // far shorter than Retry-After: the header must win
  auto start = Clock::now();
  auto response = llm::make_client(config)->chat(ask("hi"));
  EXPECT_GE(seconds_since(start), 0.3);
  EXPECT_EQ(response.text, "ok");
  EXPECT_EQ(response.attempts, 2);
  EXPECT_EQ(server_->stats().requests, 2);
}

TEST_F(ChatClientTest, RetryAfterShorterThanBackoffIsUsedInstead) {
  serve(R"(rules: [{replies: [{status: 429, retry_after: "0"}, {status: 503, retry_after: "0"}, {text: "ok"}]}])");
  auto config = endpoint();
  config.backoff_initial_s = 30;
  config.backoff_max_s = 30;
  auto start = Clock::now();
  EXPECT_EQ(llm::make_client(config)->chat(ask("hi")).attempts, 3);
  EXPECT_LT(seconds_since(start), 5);
}

TEST_F(ChatClientTest, RetryObserverHearsEachRetryWithItsWait) {
  serve(R"(rules: [{replies: [{status: 429, retry_after: "0.05"}, {status: 502}, {text: "ok"}]}])");
  auto config = endpoint();
  std::vector<llm::RetryNotice> notices;
  config.on_retry = [&notices](const llm::RetryNotice& notice) { notices.push_back(notice); };
  llm::make_client(config)->chat(ask("hi"));
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].kind, Kind::RateLimited);
  EXPECT_EQ(notices[0].attempt, 1);
  EXPECT_EQ(notices[0].max_attempts, 4);
  EXPECT_DOUBLE_EQ(notices[0].wait_s, 0.05);
  EXPECT_EQ(notices[1].kind, Kind::Unavailable);
  EXPECT_NE(notices[1].reason.find("HTTP 502"), std::string::npos);
  EXPECT_GE(notices[1].wait_s, 0.5 * config.backoff_initial_s * 2);  // backoff for retry 2, jittered
  EXPECT_LE(notices[1].wait_s, config.backoff_initial_s * 2);
}

TEST_F(ChatClientTest, ServerErrorsAreRetriedUpToTheLimitThenReported) {
  serve(R"(rules: [{replies: [{status: 503}]}])");
  auto config = endpoint();
  config.max_retries = 2;
  auto client = llm::make_client(config);
  try {
    client->chat(ask("hi"));
    FAIL() << "expected Unavailable";
  } catch (const llm::LlmError& error) {
    EXPECT_EQ(error.kind, Kind::Unavailable);
    EXPECT_NE(std::string(error.what()).find("HTTP 503 after 3 attempts"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server_->stats().requests, 3);
}

TEST_F(ChatClientTest, ClientErrorsAreNotRetried) {
  serve(R"(rules: [{contains: "bad", replies: [{status: 400}]}, {contains: "who", replies: [{status: 401}]}])");
  auto client = llm::make_client(endpoint());
  EXPECT_EQ(failure_kind(*client, ask("bad request")), Kind::BadRequest);
  EXPECT_EQ(failure_kind(*client, ask("who am i")), Kind::Auth);
  EXPECT_EQ(server_->stats().requests, 2);
}

TEST_F(ChatClientTest, SlowAnswerTimesOutAndIsRetried) {
  serve(R"(rules: [{replies: [{delay_s: 3, text: "late"}]}])");
  auto config = endpoint();
  config.timeout_s = 0.2;
  config.max_retries = 1;
  auto client = llm::make_client(config);
  auto start = Clock::now();
  EXPECT_EQ(failure_kind(*client, ask("hi")), Kind::Timeout);
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_EQ(server_->stats().requests, 2);
}

TEST_F(ChatClientTest, TimeoutThenAnswerSucceedsOnRetry) {
  serve(R"(rules: [{replies: [{delay_s: 3, text: "late"}, {text: "on time"}]}])");
  auto config = endpoint();
  config.timeout_s = 0.2;
  auto response = llm::make_client(config)->chat(ask("hi"));
  EXPECT_EQ(response.text, "on time");
  EXPECT_EQ(response.attempts, 2);
}

TEST_F(ChatClientTest, GarbageBodiesAreBadResponsesAndNotRetried) {
  serve(R"(rules: [
    {contains: "html", replies: [{body: "<html>502 proxy</html>"}]},
    {contains: "shape", replies: [{body: '{"choices": []}'}]},
    {contains: "null", replies: [{body: '{"choices": [{"message": {"content": null}}]}'}]}])");
  auto client = llm::make_client(endpoint());
  EXPECT_EQ(failure_kind(*client, ask("html")), Kind::BadResponse);
  EXPECT_EQ(failure_kind(*client, ask("shape")), Kind::BadResponse);
  EXPECT_EQ(failure_kind(*client, ask("null")), Kind::BadResponse);
  EXPECT_EQ(server_->stats().requests, 3);
}

TEST_F(ChatClientTest, RefusedConnectionIsUnavailableAfterRetries) {
  serve(R"(rules: [{replies: [{text: "x"}]}])");
  auto config = endpoint();
  server_->stop();  // the port is now closed
  config.max_retries = 1;
  EXPECT_EQ(failure_kind(*llm::make_client(config), ask("hi")), Kind::Unavailable);
}

TEST_F(ChatClientTest, UsageTotalsMatchTheServersAcrossManyCalls) {
  serve(R"(rules: [{replies: [
    {text: a, usage: {input_tokens: 100, output_tokens: 10}},
    {status: 429, retry_after: "0"},
    {text: b, usage: {input_tokens: 250, output_tokens: 40}},
    {text: c, usage: {input_tokens: 75, output_tokens: 5}}]}])");
  auto config = endpoint();
  config.usd_per_mtok_in = 3;
  config.usd_per_mtok_out = 15;
  auto client = llm::make_client(config);
  int64_t input = 0, output = 0;
  double cost = 0;
  for (int call = 0; call < 5; ++call) {
    auto response = client->chat(ask("hi"));
    input += response.input_tokens;
    output += response.output_tokens;
    cost += response.cost_usd;
  }
  auto stats = server_->stats();
  EXPECT_EQ(input, stats.input_tokens);
  EXPECT_EQ(output, stats.output_tokens);
  EXPECT_EQ(input, 100 + 250 + 75 + 75 + 75);
  EXPECT_NEAR(cost, (input * 3.0 + output * 15.0) / 1e6, 1e-12);
}

TEST_F(ChatClientTest, ClientsOfOneUrlShareTheConcurrencyLimit) {
  serve(R"(rules: [{replies: [{delay_s: 0.15, text: "x"}]}])");
  auto config = endpoint();
  config.max_concurrency = 2;
  auto planner = llm::make_client(config);
  auto executor = llm::make_client(config);
  std::vector<std::thread> threads;
  for (int thread_idx = 0; thread_idx < 6; ++thread_idx) {
    llm::ChatClient* client = thread_idx % 2 ? planner.get() : executor.get();
    threads.emplace_back([client] { client->chat(ask("hi")); });
  }
  for (auto& thread : threads) thread.join();
  auto stats = server_->stats();
  EXPECT_EQ(stats.requests, 6);
  EXPECT_EQ(stats.max_in_flight, 2);
}

TEST_F(ChatClientTest, CancelAbandonsASlowCallPromptly) {
  serve(R"(rules: [{replies: [{delay_s: 5, text: "late"}]}])");
  auto client = llm::make_client(endpoint());
  std::atomic<bool> cancel{false};
  auto request = ask("hi");
  request.cancel = &cancel;
  std::thread canceller([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  auto start = Clock::now();
  EXPECT_EQ(failure_kind(*client, request), Kind::Cancelled);
  canceller.join();
  EXPECT_LT(seconds_since(start), 3.0);
}

TEST(MakeClient, RejectsUnknownApiAndMissingFields) {
  llm::EndpointConfig config;
  config.url = "http://127.0.0.1:1";
  config.model = "m";
  config.api = "grpc";
  EXPECT_THROW(llm::make_client(config), llm::LlmError);
  config.api = "openai";
  config.model = "";
  EXPECT_THROW(llm::make_client(config), llm::LlmError);
}

TEST(RequestFingerprint, DependsOnMessagesAndSamplingButNotOnKeys) {
  llm::EndpointConfig config;
  config.model = "m";
  llm::ChatRequest request;
  request.messages = {{"user", "a"}};
  std::string base = llm::request_fingerprint(config, request);
  config.api_key_env = "OTHER_VAR";
  EXPECT_EQ(llm::request_fingerprint(config, request), base);
  request.temperature = 0.5;
  EXPECT_NE(llm::request_fingerprint(config, request), base);
  request.temperature = -1;
  request.messages[0].content = "b";
  EXPECT_NE(llm::request_fingerprint(config, request), base);
}

}  // namespace
