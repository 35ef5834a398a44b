// Response parsing and header handling for both APIs, without a server.
#include <gtest/gtest.h>

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
