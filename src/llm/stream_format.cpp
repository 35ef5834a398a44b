// Event streams of streamed answers (`stream: true`): OpenAI-compatible server-sent events
// ("data: {chunk}" lines ending with "data: [DONE]") and the Anthropic Messages stream
// (message_start, content_block_delta, message_delta, message_stop). The whole stream is parsed
// once it has arrived; streaming only keeps the connection alive while the model writes.
#include <map>
#include <sstream>

#include <fmt/core.h>

#include "llm/wire_format.h"
#include "llm/wire_json.h"

namespace llm {
namespace {

using nlohmann::json;

// The JSON payloads of the stream's "data:" lines, in order ("[DONE]" stays a string).
std::vector<std::string> data_lines(const std::string& stream) {
  std::vector<std::string> out;
  std::istringstream in(stream);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("data:", 0) != 0) continue;  // "event:", "id:", comments, blank separators
    size_t start = line.find_first_not_of(' ', 5);
    out.push_back(start == std::string::npos ? "" : line.substr(start));
  }
  return out;
}

json chunk(const std::string& data, const std::string& stream) {
  json doc = json::parse(data, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) bad_response("a stream event is not a JSON object", stream);
  return doc;
}

[[noreturn]] void stream_error(const json& error, const std::string& stream) {
  std::string message = error.is_object() ? error.value("message", error.dump()) : error.dump();
  throw LlmError(LlmError::Kind::Unavailable, fmt::format("the stream reported an error: {}", excerpt(message)));
}

Reply parse_openai_stream(const std::string& stream) {
  Reply reply;
  std::map<int, std::string> texts;  // by choice index
  bool done = false;
  for (const auto& data : data_lines(stream)) {
    if (data == "[DONE]") {
      done = true;
      break;
    }
    json doc = chunk(data, stream);
    if (doc.contains("error")) stream_error(doc["error"], stream);
    if (reply.model.empty()) reply.model = optional_string(doc, "model");
    for (const json& choice : doc.value("choices", json::array())) {
      if (!choice.is_object()) continue;
      int index = choice.value("index", 0);
      texts[index];  // a choice with an empty answer still counts
      const json delta = choice.value("delta", json::object());
      if (delta.is_object() && delta.contains("content") && delta["content"].is_string())
        texts[index] += delta["content"].get<std::string>();
      std::string finish = optional_string(choice, "finish_reason");
      if (!finish.empty() && index == 0) reply.finish_reason = finish;
    }
    if (doc.contains("usage")) read_openai_usage(doc["usage"], stream, reply);
  }
  if (!done) bad_response("the stream ended before 'data: [DONE]'", stream);
  if (texts.empty()) bad_response("the stream has no choices", stream);
  for (auto& [index, text] : texts) reply.samples.push_back(std::move(text));
  reply.text = reply.samples.front();
  return reply;
}

Reply parse_anthropic_stream(const std::string& stream) {
  Reply reply;
  bool started = false, stopped = false;
  for (const auto& data : data_lines(stream)) {
    json doc = chunk(data, stream);
    std::string type = doc.value("type", "");
    if (type == "error") stream_error(doc.value("error", json()), stream);
    if (type == "message_start") {
      started = true;
      const json message = doc.value("message", json::object());
      reply.model = optional_string(message, "model");
      read_anthropic_usage(message.value("usage", json()), stream, reply);
    } else if (type == "content_block_delta") {
      const json delta = doc.value("delta", json::object());
      if (delta.value("type", "") == "text_delta" && delta.contains("text") && delta["text"].is_string())
        reply.text += delta["text"].get<std::string>();
    } else if (type == "message_delta") {
      std::string reason = optional_string(doc.value("delta", json::object()), "stop_reason");
      if (!reason.empty()) reply.finish_reason = reason;
      read_anthropic_usage(doc.value("usage", json()), stream, reply);
    } else if (type == "message_stop") {
      stopped = true;
    }
  }
  if (!started) bad_response("the stream has no message_start event", stream);
  if (!stopped) bad_response("the stream ended before message_stop", stream);
  reply.samples = {reply.text};
  return reply;
}

}  // namespace

Reply parse_stream(Api api, const std::string& stream) {
  return api == Api::OpenAi ? parse_openai_stream(stream) : parse_anthropic_stream(stream);
}

}  // namespace llm
