// The script of the fake LLM server: which reply to give to which request, in order.
// Script files are YAML (JSON is accepted too); the format is documented in docs/config.md
// ("Fake LLM server") and exercised by tests/unit/llm/fake_llm_script_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fake_llm {

struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Reply {
  int status = 200;
  std::string text;                 // the answer, wrapped in the API's JSON shape
  std::optional<std::string> body;  // a raw body sent as is (garbage, custom JSON)
  // input_tokens is the whole prompt; cached_tokens of it came from the prompt cache and
  // cache_write_tokens were written to it (anthropic shape: input_tokens excludes both).
  int64_t input_tokens = 10, output_tokens = 20, cached_tokens = 0, cache_write_tokens = 0;
  double delay_s = 0;                      // wait before answering (timeouts)
  std::optional<std::string> retry_after;  // Retry-After header value
  std::string finish_reason = "stop";
  // Streamed answers (requests with "stream": true): the text goes out in `chunks` events with
  // chunk_delay_s between them; `cut_stream` ends the stream before its last event.
  int chunks = 3;
  double chunk_delay_s = 0;
  bool cut_stream = false;
};

// A rule matches a request when every non-empty filter matches.
struct Rule {
  std::string name;      // for /stats ("rule0", "rule1", ... when not given)
  std::string api;       // "openai" | "anthropic" | "" (any)
  std::string model;     // exact model name, "" = any
  std::string contains;  // substring of any message (system prompt included), "" = any
  std::vector<Reply> replies;  // served in order
  bool repeat_last = true;     // once exhausted: repeat the last reply, or fall through to later rules
};

struct Script {
  std::vector<Rule> rules;
  std::string require_api_key;  // "" = no check; otherwise 401 without this key
};

// base_dir resolves `text_file:` entries. Throws ScriptError naming the source and the key.
Script parse_script(const std::string& yaml_text, const std::string& source, const std::string& base_dir);
Script load_script(const std::string& path);

}  // namespace fake_llm
