// Prompt templates: plain text files in prompts/ with named placeholders `{{name}}`. The templates
// are compiled into the binary; a directory given at run time overrides any of them by file name
// (prompts/<name>.txt). Examples: tests/unit/agents/prompt_template_test.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace agents {

using PromptVars = std::map<std::string, std::string>;

// Replaces every `{{name}}` by vars[name]. Throws std::invalid_argument naming the template and
// the placeholder when a placeholder has no value or is not closed, so a typo in a template is
// caught on the first call rather than sent to the model.
std::string render_template(const std::string& template_name, const std::string& text, const PromptVars& vars);

// The placeholder names used in `text`, in order of first use.
std::vector<std::string> placeholders(const std::string& text);

// A rendered prompt and the length of its stable prefix: the text before the template's
// `{{cache_boundary}}` marker (the guide and the reference, the same in every call of a task),
// which providers can cache (llm::Message::cache_prefix). 0 when the template has no marker.
struct RenderedPrompt {
  std::string text;
  size_t cache_prefix = 0;
};

class PromptLibrary {
 public:
  // The compiled-in templates, overridden by `<override_dir>/<name>.txt` files when the directory
  // is given. Throws std::runtime_error when the directory does not exist.
  explicit PromptLibrary(const std::string& override_dir = "");
  bool has(const std::string& name) const { return templates_.count(name) > 0; }
  const std::string& text(const std::string& name) const;  // throws std::out_of_range naming it
  std::string render(const std::string& name, const PromptVars& vars) const;  // marker removed
  RenderedPrompt render_prompt(const std::string& name, const PromptVars& vars) const;

 private:
  std::map<std::string, std::string> templates_;
};

}  // namespace agents
