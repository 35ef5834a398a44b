// The chat clients against the scripted fake server (tests/support): wire format, usage and
// cost, retries, Retry-After, timeouts, bad answers, the shared concurrency limit, cancellation.
#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include <fmt/core.h>
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

// Issue 12, defect 6: a failed call must say what happened on the wire (it was recorded with
// attempts 0, latency 0 and no body).
TEST_F(ChatClientTest, FailedCallCarriesItsAttemptsLatencyStatusAndBody) {
  serve(R"(rules: [{replies: [{status: 503, delay_s: 0.05}]}])");
  auto config = endpoint();
  config.max_retries = 2;
  try {
    llm::make_client(config)->chat(ask("hi"));
    FAIL() << "expected Unavailable";
  } catch (const llm::LlmError& error) {
    EXPECT_EQ(error.kind, Kind::Unavailable);
    EXPECT_EQ(error.attempts, 3);
    EXPECT_GE(error.latency_s, 0.15);
    EXPECT_EQ(error.http_status, 503);
    EXPECT_NE(error.raw.find("scripted status 503"), std::string::npos) << error.raw;
    EXPECT_EQ(error.model, "fake-model");
  }
  // A call that never left (the key variable is unset) made no attempt.
  unsetenv("ACCELOPT_TEST_UNSET_KEY");
  config.api_key_env = "ACCELOPT_TEST_UNSET_KEY";
  try {
    llm::make_client(config)->chat(ask("hi"));
    FAIL();
  } catch (const llm::LlmError& error) {
    EXPECT_EQ(error.attempts, 0);
    EXPECT_EQ(error.http_status, 0);
  }
}

// Issue 12, defect 3: the base url as servers print it, ending in /v1.
TEST_F(ChatClientTest, BaseUrlEndingInV1Works) {
  serve(R"(rules: [{replies: [{text: "ok"}]}])");
  auto config = endpoint();
  config.url = server_->url() + "/v1";
  EXPECT_EQ(llm::make_client(config)->chat(ask("hi")).text, "ok");
  EXPECT_EQ(server_->requests().at(0).path, "/v1/chat/completions");
}

// Issue 12, defect 4: an endpoint that restarts (refusing connections meanwhile) is waited for
// within the retry window, beyond max_retries.
TEST_F(ChatClientTest, RetryWindowOutlastsAnEndpointRestart) {
  serve(R"(rules: [{replies: [{text: "back"}]}])");
  auto config = endpoint();
  config.max_retries = 1;
  config.backoff_initial_s = 0.1;
  config.backoff_max_s = 0.2;
  server_->restart_after(1.5);
  // Without a window: two refused attempts, then the error.
  EXPECT_EQ(failure_kind(*llm::make_client(config), ask("hi")), Kind::Unavailable);
  config.retry_window_s = 20;
  std::vector<llm::RetryNotice> notices;
  config.on_retry = [&notices](const llm::RetryNotice& notice) { notices.push_back(notice); };
  auto response = llm::make_client(config)->chat(ask("hi"));
  EXPECT_EQ(response.text, "back");
  EXPECT_GT(response.attempts, 2);
  ASSERT_FALSE(notices.empty());
  EXPECT_EQ(notices.front().kind, Kind::Unavailable);
  EXPECT_NE(notices.front().reason.find("127.0.0.1"), std::string::npos) << notices.front().reason;
}

// Streaming: an answer that takes longer than timeout_s in all arrives, because timeout_s is the
// longest silence of a stream; without streaming the same answer times out (and is paid twice).
// The pieces come 1.2 s apart against a 2 s timeout: margins that hold on a loaded machine.
TEST_F(ChatClientTest, StreamedAnswerLongerThanTheTimeoutArrives) {
  for (const char* api : {"openai", "anthropic"}) {
    serve(R"(rules: [{replies: [{text: "a long reasoning answer", chunks: 3, chunk_delay_s: 1.2,
                                  usage: {input_tokens: 70, output_tokens: 30, cached_tokens: 40}}]}])");
    auto config = endpoint(api);
    config.timeout_s = 2;
    config.max_retries = 0;
    config.stream = true;
    config.usd_per_mtok_in = 10;
    config.usd_per_mtok_cached_in = 1;
    auto start = Clock::now();
    auto response = llm::make_client(config)->chat(ask("think"));
    EXPECT_GT(seconds_since(start), 2.0) << api;
    EXPECT_EQ(response.text, "a long reasoning answer") << api;
    EXPECT_EQ(response.input_tokens, 70) << api;
    EXPECT_EQ(response.cached_input_tokens, 40) << api;
    EXPECT_EQ(response.output_tokens, 30) << api;
    EXPECT_DOUBLE_EQ(response.cost_usd, (30 * 10.0 + 40 * 1.0) / 1e6) << api;
    EXPECT_NE(response.raw.find("data:"), std::string::npos) << api;
    EXPECT_EQ(nlohmann::json::parse(server_->requests().back().body)["stream"], true) << api;
    if (std::string(api) == "anthropic") continue;  // the unstreamed comparison once is enough
    config.stream = false;
    EXPECT_EQ(failure_kind(*llm::make_client(config), ask("think")), Kind::Timeout) << api;
  }
}

TEST_F(ChatClientTest, StreamThatGoesSilentTimesOutAndACutStreamIsABadResponse) {
  serve(R"(rules: [{contains: "silent", replies: [{text: "abc", chunks: 2, chunk_delay_s: 6}]},
                   {contains: "cut", replies: [{text: "abc", cut_stream: true}]}])");
  auto config = endpoint();
  config.timeout_s = 1;
  config.max_retries = 0;
  config.stream = true;
  auto start = Clock::now();
  EXPECT_EQ(failure_kind(*llm::make_client(config), ask("silent")), Kind::Timeout);
  EXPECT_LT(seconds_since(start), 5.0);  // the silence is noticed (about a second), not the stream's end
  EXPECT_EQ(failure_kind(*llm::make_client(config), ask("cut")), Kind::BadResponse);
}

TEST_F(ChatClientTest, NSamplesComeFromOneRequest) {
  serve(R"(rules: [{replies: [{text: "k0", usage: {input_tokens: 500, output_tokens: 10}},
                              {text: "k1", usage: {output_tokens: 11}}, {text: "k2", usage: {output_tokens: 12}}]}])");
  auto config = endpoint();
  config.n_samples = true;
  auto request = ask("write 3");
  request.n = 3;
  auto response = llm::make_client(config)->chat(request);
  EXPECT_EQ(response.samples, (std::vector<std::string>{"k0", "k1", "k2"}));
  EXPECT_EQ(response.input_tokens, 500);
  EXPECT_EQ(response.output_tokens, 33);
  EXPECT_EQ(server_->stats().requests, 1);
  EXPECT_EQ(nlohmann::json::parse(server_->requests().back().body)["n"], 3);
}

TEST_F(ChatClientTest, FallbackAnswersAfterThePrimaryFailsForGood) {
  serve(R"(rules: [{model: primary, replies: [{status: 503}]}, {model: backup, replies: [{text: "from backup"}]}])");
  auto config = endpoint();
  config.model = "primary";
  config.max_retries = 1;
  auto backup = config;
  backup.model = "backup";
  config.fallbacks = {backup};
  auto response = llm::make_client(config)->chat(ask("hi"));
  EXPECT_EQ(response.text, "from backup");
  EXPECT_EQ(response.endpoint_model, "backup");
  EXPECT_EQ(response.attempts, 3);  // two on the primary, one on the fallback
  auto stats = server_->stats();
  EXPECT_EQ(stats.by_model["primary"], 2);
  EXPECT_EQ(stats.by_model["backup"], 1);
}

TEST_F(ChatClientTest, EnsembleSharesCallsByWeightAndRoutesEachKeyTheSameWay) {
  serve(R"(rules: [{model: big, replies: [{text: "big"}]}, {model: small, replies: [{text: "small"}]}])");
  auto config = endpoint();
  config.model = "big";
  config.weight = 3;
  auto small = config;
  small.model = "small";
  small.weight = 1;
  config.ensemble = {small};
  auto client = llm::make_client(config);
  int big = 0;
  std::map<std::string, std::string> first_answer;
  for (int call = 0; call < 200; ++call) {
    auto request = ask("hi");
    request.route_key = "call " + std::to_string(call % 100);
    std::string text = client->chat(request).text;
    big += text == "big";
    auto [it, fresh] = first_answer.emplace(request.route_key, text);
    EXPECT_EQ(it->second, text) << "the same key went to another member";
  }
  EXPECT_NEAR(big / 200.0, 0.75, 0.12);
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
