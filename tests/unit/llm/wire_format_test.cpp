// Response parsing and header handling for both APIs, without a server.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/backoff.h"
#include "llm/http_post.h"
#include "llm/wire_format.h"

namespace {

using llm::Api;

llm::LlmError::Kind parse_failure(Api api, const std::string& body) {
  try {
    llm::parse_reply(api, body);
  } catch (const llm::LlmError& error) {
    return error.kind;
  }
  return llm::LlmError::Kind::Cancelled;  // "did not fail"
}

TEST(WireFormat, OpenAiReplyWithoutUsageCountsZeroTokens) {
  auto reply = llm::parse_reply(Api::OpenAi, R"({"choices": [{"message": {"content": "hi"}}]})");
  EXPECT_EQ(reply.text, "hi");
  EXPECT_EQ(reply.input_tokens, 0);
  EXPECT_EQ(reply.output_tokens, 0);
}

TEST(WireFormat, AnthropicReplyConcatenatesTextBlocksAndSkipsOthers) {
  auto reply = llm::parse_reply(Api::Anthropic, R"({"content": [
      {"type": "text", "text": "a"}, {"type": "tool_use", "id": "x"}, {"type": "text", "text": "b"}],
      "stop_reason": "max_tokens", "usage": {"input_tokens": 3, "output_tokens": 4}})");
  EXPECT_EQ(reply.text, "ab");
  EXPECT_EQ(reply.finish_reason, "max_tokens");
  EXPECT_EQ(reply.input_tokens, 3);
  EXPECT_EQ(reply.output_tokens, 4);
}

TEST(WireFormat, MalformedRepliesAreBadResponses) {
  using Kind = llm::LlmError::Kind;
  EXPECT_EQ(parse_failure(Api::OpenAi, ""), Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::OpenAi, "[1, 2]"), Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::OpenAi, R"({"choices": [{}]})"), Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::OpenAi, R"({"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "many"}})"),
            Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::OpenAi, R"({"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": -5}})"),
            Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::Anthropic, R"({"content": []})"), Kind::BadResponse);
  EXPECT_EQ(parse_failure(Api::Anthropic, R"({"choices": [{"message": {"content": "x"}}]})"), Kind::BadResponse);
}

TEST(WireFormat, UrlsAndHeaders) {
  EXPECT_EQ(llm::chat_url(Api::OpenAi, "http://h:1/"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(llm::chat_url(Api::Anthropic, "http://h:1"), "http://h:1/v1/messages");
  auto headers = llm::request_headers(Api::OpenAi, "");
  EXPECT_EQ(headers, std::vector<std::string>{"Content-Type: application/json"});
  EXPECT_THROW(llm::parse_api("gemini"), llm::LlmError);
}

// Issue 12, defect 3: a url ending in /v1 (as servers print it) used to become .../v1/v1/... (404).
TEST(WireFormat, BaseUrlMayEndInV1) {
  EXPECT_EQ(llm::chat_url(Api::OpenAi, "http://h:8000/v1"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(llm::chat_url(Api::OpenAi, "http://h:8000/v1/"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(llm::chat_url(Api::Anthropic, "https://api.example/v1"), "https://api.example/v1/messages");
  EXPECT_EQ(llm::chat_url(Api::OpenAi, "http://h:8000/serving/v1"), "http://h:8000/serving/v1/chat/completions");
  EXPECT_EQ(llm::chat_url(Api::OpenAi, "http://h:8000/v10"), "http://h:8000/v10/v1/chat/completions");
}

TEST(WireFormat, CachedPromptTokensAreReadFromBothApis) {
  auto openai = llm::parse_reply(Api::OpenAi, R"({"choices": [{"message": {"content": "x"}}],
      "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 800}}})");
  EXPECT_EQ(openai.input_tokens, 1000);
  EXPECT_EQ(openai.cached_input_tokens, 800);
  // Anthropic's input_tokens leaves out the cache reads and writes; the reply counts the whole prompt.
  auto anthropic = llm::parse_reply(Api::Anthropic, R"({"content": [{"type": "text", "text": "x"}],
      "usage": {"input_tokens": 100, "cache_read_input_tokens": 800, "cache_creation_input_tokens": 50, "output_tokens": 9}})");
  EXPECT_EQ(anthropic.input_tokens, 950);
  EXPECT_EQ(anthropic.cached_input_tokens, 800);
  EXPECT_EQ(anthropic.cache_write_tokens, 50);
  EXPECT_EQ(anthropic.output_tokens, 9);
  EXPECT_EQ(parse_failure(Api::OpenAi, R"({"choices": [{"message": {"content": "x"}}],
      "usage": {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 11}}})"),
            llm::LlmError::Kind::BadResponse);
}

TEST(WireFormat, CachedTokensArePricedAtTheCachedPrice) {
  llm::EndpointConfig config;
  config.usd_per_mtok_in = 3;
  config.usd_per_mtok_out = 15;
  EXPECT_DOUBLE_EQ(llm::cost_usd(config, 1000, 100, 800), (1000 * 3.0 + 100 * 15.0) / 1e6);  // no cached price: full
  config.usd_per_mtok_cached_in = 0.3;
  config.usd_per_mtok_cache_write = 3.75;
  EXPECT_DOUBLE_EQ(llm::cost_usd(config, 1000, 100, 800, 50), (150 * 3.0 + 800 * 0.3 + 50 * 3.75 + 100 * 15.0) / 1e6);
}

TEST(WireFormat, ExtraKeysStreamAndSamplesGoIntoTheBody) {
  llm::EndpointConfig config;
  config.model = "m";
  config.extra_json = R"({"top_p": 0.9, "seed": 7, "reasoning_effort": "high", "chat_template_kwargs": {"enable_thinking": false},
                          "temperature": 0.1})";
  config.stream = true;
  llm::ChatRequest request;
  request.messages = {{"user", "hi"}};
  request.n = 3;
  auto body = nlohmann::json::parse(llm::request_body(Api::OpenAi, config, request));
  EXPECT_EQ(body["top_p"], 0.9);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_EQ(body["chat_template_kwargs"]["enable_thinking"], false);
  EXPECT_EQ(body["temperature"], 0.1);  // extra wins over the sampling defaults
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["n"], 3);
  EXPECT_EQ(body["model"], "m");
  // null removes a default the server rejects (reasoning models take max_completion_tokens).
  config.extra_json = R"({"max_tokens": null, "max_completion_tokens": 9000})";
  auto reasoning = nlohmann::json::parse(llm::request_body(Api::OpenAi, config, request));
  EXPECT_FALSE(reasoning.contains("max_tokens"));
  EXPECT_EQ(reasoning["max_completion_tokens"], 9000);
  EXPECT_NO_THROW(llm::check_extra(config.extra_json));
  EXPECT_THROW(llm::check_extra(R"({"model": "other"})"), llm::LlmError);
  EXPECT_THROW(llm::check_extra(R"([1])"), llm::LlmError);
}

TEST(WireFormat, AnthropicMarksTheStablePrefixForCaching) {
  llm::EndpointConfig config;
  config.model = "claude";
  llm::ChatRequest request;
  request.messages = {{"system", "sys"}, {"user", "GUIDE AND REFERENCE|the kernel", 20}};
  auto body = nlohmann::json::parse(llm::request_body(Api::Anthropic, config, request));
  const auto& content = body["messages"][0]["content"];
  ASSERT_TRUE(content.is_array());
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[0]["text"], "GUIDE AND REFERENCE|");
  EXPECT_EQ(content[0]["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(content[1]["text"], "the kernel");
  EXPECT_FALSE(content[1].contains("cache_control"));
  // OpenAI-compatible servers cache prefixes themselves: the message stays plain text.
  auto openai = nlohmann::json::parse(llm::request_body(Api::OpenAi, config, request));
  EXPECT_EQ(openai["messages"][1]["content"], "GUIDE AND REFERENCE|the kernel");
}

TEST(WireFormat, OpenAiEventStreamAssemblesTextSamplesAndUsage) {
  std::string stream =
      "data: {\"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"role\": \"assistant\", \"content\": \"Hel\"}}]}\n\n"
      ": keep-alive comment\n\n"
      "data: {\"choices\": [{\"index\": 1, \"delta\": {\"content\": \"B\"}}]}\n\n"
      "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"lo\"}, \"finish_reason\": \"length\"}]}\n\n"
      "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 12, \"completion_tokens\": 5, "
      "\"prompt_tokens_details\": {\"cached_tokens\": 4}}}\n\n"
      "data: [DONE]\n\n";
  auto reply = llm::parse_stream(Api::OpenAi, stream);
  EXPECT_EQ(reply.text, "Hello");
  ASSERT_EQ(reply.samples.size(), 2u);
  EXPECT_EQ(reply.samples[1], "B");
  EXPECT_EQ(reply.finish_reason, "length");
  EXPECT_EQ(reply.model, "m");
  EXPECT_EQ(reply.input_tokens, 12);
  EXPECT_EQ(reply.cached_input_tokens, 4);
  EXPECT_EQ(reply.output_tokens, 5);
  // A stream cut before [DONE] is not an answer.
  EXPECT_THROW(llm::parse_stream(Api::OpenAi, stream.substr(0, stream.find("data: [DONE]"))), llm::LlmError);
}

TEST(WireFormat, AnthropicEventStreamAssemblesTextAndUsage) {
  std::string stream =
      "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"model\": \"c\", \"usage\": "
      "{\"input_tokens\": 10, \"cache_read_input_tokens\": 90, \"output_tokens\": 1}}}\n\n"
      "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": "
      "{\"type\": \"text_delta\", \"text\": \"ker\"}}\n\n"
      "event: ping\ndata: {\"type\": \"ping\"}\n\n"
      "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": "
      "{\"type\": \"text_delta\", \"text\": \"nel\"}}\n\n"
      "event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\"}, "
      "\"usage\": {\"output_tokens\": 33}}\n\n"
      "event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n";
  auto reply = llm::parse_stream(Api::Anthropic, stream);
  EXPECT_EQ(reply.text, "kernel");
  EXPECT_EQ(reply.finish_reason, "end_turn");
  EXPECT_EQ(reply.input_tokens, 100);
  EXPECT_EQ(reply.cached_input_tokens, 90);
  EXPECT_EQ(reply.output_tokens, 33);
  EXPECT_THROW(llm::parse_stream(Api::Anthropic, stream.substr(0, stream.find("event: message_stop"))), llm::LlmError);
  try {
    llm::parse_stream(Api::Anthropic, "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": "
                                      "\"overloaded_error\", \"message\": \"Overloaded\"}}\n\n");
    FAIL();
  } catch (const llm::LlmError& error) {
    EXPECT_EQ(error.kind, llm::LlmError::Kind::Unavailable);  // retried like a 529
    EXPECT_NE(std::string(error.what()).find("Overloaded"), std::string::npos);
  }
}

TEST(RetryAfter, AcceptsSecondsOnly) {
  EXPECT_EQ(llm::parse_retry_after("120"), 120.0);
  EXPECT_EQ(llm::parse_retry_after("0.5"), 0.5);
  EXPECT_FALSE(llm::parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
  EXPECT_FALSE(llm::parse_retry_after("-3"));
  EXPECT_FALSE(llm::parse_retry_after(""));
}

TEST(Backoff, GrowsExponentiallyWithinJitterBoundsAndIsCapped) {
  llm::Backoff backoff(1.0, 10.0, 42);
  for (int retry = 1; retry <= 6; ++retry) {
    double cap = std::min(10.0, std::pow(2.0, retry - 1));
    double delay = backoff.delay_s(retry);
    EXPECT_GE(delay, 0.5 * cap);
    EXPECT_LE(delay, cap);
  }
}

TEST(Backoff, SameSeedSameDelays) {
  llm::Backoff first(1.0, 60.0, 9), second(1.0, 60.0, 9), other(1.0, 60.0, 10);
  bool differs = false;
  for (int retry = 1; retry <= 5; ++retry) {
    double delay = first.delay_s(retry);
    EXPECT_DOUBLE_EQ(delay, second.delay_s(retry));
    differs = differs || delay != other.delay_s(retry);
  }
  EXPECT_TRUE(differs);
}

}  // namespace
