#include "agents/prompt_template.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

namespace agents {

const std::map<std::string, std::string>& embedded_prompts();  // generated (see CMakeLists.txt)

namespace {

struct Placeholder {
  size_t begin, end;  // [begin, end) covers "{{name}}"
  std::string name;
};

// Next placeholder at or after `from`; nullopt when none. Throws on an unclosed "{{".
std::optional<Placeholder> next_placeholder(const std::string& template_name, const std::string& text, size_t from) {
  size_t open = text.find("{{", from);
  if (open == std::string::npos) return std::nullopt;
  size_t close = text.find("}}", open + 2);
  size_t line_end = text.find('\n', open);
  if (close == std::string::npos || (line_end != std::string::npos && close > line_end))
    throw std::invalid_argument(fmt::format("prompt template '{}': unclosed '{{{{' at offset {}", template_name, open));
  return Placeholder{open, close + 2, text.substr(open + 2, close - open - 2)};
}

}  // namespace

std::string render_template(const std::string& template_name, const std::string& text, const PromptVars& vars) {
  std::string out;
  size_t pos = 0;
  while (auto ph = next_placeholder(template_name, text, pos)) {
    auto value = vars.find(ph->name);
    if (value == vars.end())
      throw std::invalid_argument(fmt::format("prompt template '{}': no value for placeholder '{}'", template_name, ph->name));
    out.append(text, pos, ph->begin - pos);
    out += value->second;
    pos = ph->end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::vector<std::string> placeholders(const std::string& text) {
  std::vector<std::string> names;
  size_t pos = 0;
  while (auto ph = next_placeholder("", text, pos)) {
    if (std::find(names.begin(), names.end(), ph->name) == names.end()) names.push_back(ph->name);
    pos = ph->end;
  }
  return names;
}

PromptLibrary::PromptLibrary(const std::string& override_dir) : templates_(embedded_prompts()) {
  if (override_dir.empty()) return;
  namespace fs = std::filesystem;
  if (!fs::is_directory(override_dir))
    throw std::runtime_error(fmt::format("{}: prompt directory does not exist", override_dir));
  for (const auto& entry : fs::directory_iterator(override_dir)) {
    if (entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    templates_[entry.path().stem().string()] = text.str();
  }
}

const std::string& PromptLibrary::text(const std::string& name) const {
  auto it = templates_.find(name);
  if (it == templates_.end()) throw std::out_of_range(fmt::format("no prompt template named '{}'", name));
  return it->second;
}

RenderedPrompt PromptLibrary::render_prompt(const std::string& name, const PromptVars& vars) const {
  // Control characters that no template or task text contains mark the boundary in the output.
  static const std::string kMark = "\x1f\x1e cache boundary \x1e\x1f";
  PromptVars with_mark = vars;
  with_mark["cache_boundary"] = kMark;
  RenderedPrompt out{render_template(name, text(name), with_mark), 0};
  size_t at = out.text.find(kMark);
  if (at == std::string::npos) return out;
  out.text.erase(at, kMark.size());
  out.cache_prefix = at;
  return out;
}

std::string PromptLibrary::render(const std::string& name, const PromptVars& vars) const {
  return render_prompt(name, vars).text;
}

}  // namespace agents
