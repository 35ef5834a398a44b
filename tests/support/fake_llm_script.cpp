#include "support/fake_llm_script.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

namespace fake_llm {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScriptError(fmt::format("{}: cannot read the file", what));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ScriptReader {
 public:
  ScriptReader(std::string source, std::string base_dir) : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& message) const {
    throw ScriptError(fmt::format("{}:{}: {}: {}", source_, node.Mark().line + 1, key, message));
  }

  template <typename T>
  T get(const YAML::Node& node, const std::string& key) const {
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      fail(node, key, "value of the wrong type");
    }
  }

  Reply reply(const YAML::Node& node, const std::string& path) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping");
    Reply reply;
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      const std::string where = path + "." + key;
      const YAML::Node& value = entry.second;
      if (key == "status") reply.status = get<int>(value, where);
      else if (key == "text") reply.text = get<std::string>(value, where);
      else if (key == "text_file") reply.text = read_file(resolve(get<std::string>(value, where)), source_ + ": " + where);
      else if (key == "body") reply.body = get<std::string>(value, where);
      else if (key == "delay_s") reply.delay_s = get<double>(value, where);
      else if (key == "retry_after") reply.retry_after = get<std::string>(value, where);
      else if (key == "finish_reason") reply.finish_reason = get<std::string>(value, where);
      else if (key == "chunks") reply.chunks = std::max(1, get<int>(value, where));
      else if (key == "chunk_delay_s") reply.chunk_delay_s = get<double>(value, where);
      else if (key == "cut_stream") reply.cut_stream = get<bool>(value, where);
      else if (key == "usage") usage(value, where, reply);
      else fail(entry.first, where, "unknown key");
    }
    return reply;
  }

  Rule rule(const YAML::Node& node, const std::string& path, size_t index) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping");
    Rule rule;
    rule.name = fmt::format("rule{}", index);
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      const std::string where = path + "." + key;
      if (key == "name") rule.name = get<std::string>(entry.second, where);
      else if (key == "api") rule.api = get<std::string>(entry.second, where);
      else if (key == "model") rule.model = get<std::string>(entry.second, where);
      else if (key == "contains") rule.contains = get<std::string>(entry.second, where);
      else if (key == "repeat_last") rule.repeat_last = get<bool>(entry.second, where);
      else if (key == "replies") replies(entry.second, where, rule);
      else fail(entry.first, where, "unknown key");
    }
    if (rule.replies.empty()) fail(node, path + ".replies", "missing or empty");
    return rule;
  }

 private:
  void usage(const YAML::Node& node, const std::string& path, Reply& reply) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping");
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      if (key == "input_tokens") reply.input_tokens = get<int64_t>(entry.second, path + "." + key);
      else if (key == "output_tokens") reply.output_tokens = get<int64_t>(entry.second, path + "." + key);
      else if (key == "cached_tokens") reply.cached_tokens = get<int64_t>(entry.second, path + "." + key);
      else if (key == "cache_write_tokens") reply.cache_write_tokens = get<int64_t>(entry.second, path + "." + key);
      else fail(entry.first, path + "." + key, "unknown key");
    }
  }

  void replies(const YAML::Node& node, const std::string& path, Rule& rule) const {
    if (!node.IsSequence()) fail(node, path, "expected a list");
    for (size_t idx = 0; idx < node.size(); ++idx)
      rule.replies.push_back(reply(node[idx], fmt::format("{}[{}]", path, idx)));
  }

  std::string resolve(const std::string& path) const {
    if (std::filesystem::path(path).is_absolute() || base_dir_.empty()) return path;
    return (std::filesystem::path(base_dir_) / path).string();
  }

  std::string source_, base_dir_;
};

}  // namespace

Script parse_script(const std::string& yaml_text, const std::string& source, const std::string& base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& error) {
    throw ScriptError(fmt::format("{}:{}: {}", source, error.mark.line + 1, error.msg));
  }
  ScriptReader reader(source, base_dir);
  if (!root.IsMap()) throw ScriptError(source + ": expected a mapping with a 'rules' list");
  Script script;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key == "require_api_key") {
      script.require_api_key = reader.get<std::string>(entry.second, key);
    } else if (key == "rules") {
      if (!entry.second.IsSequence()) reader.fail(entry.second, key, "expected a list");
      for (size_t idx = 0; idx < entry.second.size(); ++idx)
        script.rules.push_back(reader.rule(entry.second[idx], fmt::format("rules[{}]", idx), idx));
    } else {
      reader.fail(entry.first, key, "unknown key");
    }
  }
  return script;
}

Script load_script(const std::string& path) {
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_script(read_file(path, path), path, base_dir);
}

}  // namespace fake_llm
