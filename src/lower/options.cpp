#include "lower/options.h"

#include <stdexcept>

#include <fmt/format.h>

namespace lower {

const char* to_string(Rule rule) {
  switch (rule) {
    case Rule::PsumCopies: return "psum_copies";
    case Rule::PsumAccumulation: return "psum_accumulation";
    case Rule::HoistLoads: return "hoist_loads";
    case Rule::LoopFolding: return "loop_folding";
    case Rule::DmaCoalescing: return "dma_coalescing";
    case Rule::TransposeIdentity: return "transpose_identity";
  }
  return "?";
}

std::optional<Rule> rule_named(std::string_view name) {
  for (int r = 0; r < kRuleCount; ++r)
    if (name == to_string(Rule(r))) return Rule(r);
  return std::nullopt;
}

Options parse_rules(std::string_view spec) {
  Options options;
  if (spec == "all") return options;
  options.enabled.fill(false);
  if (spec == "none") return options;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view name = spec.substr(0, comma);
    auto rule = rule_named(name);
    if (rule) options.enabled[size_t(*rule)] = true;
    else {
      std::string known;
      for (int r = 0; r < kRuleCount; ++r) known += fmt::format("{}{}", r ? ", " : "", to_string(Rule(r)));
      throw std::invalid_argument(
          fmt::format("unknown lowering rule '{}' (all, none, or a list of: {})", name, known));
    }
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
  }
  return options;
}

std::string rules_spec(const Options& options) {
  std::string names;
  int on = 0;
  for (int r = 0; r < kRuleCount; ++r)
    if (options.enabled[size_t(r)]) names += fmt::format("{}{}", on++ ? "," : "", to_string(Rule(r)));
  if (on == kRuleCount) return "all";
  return on ? names : "none";
}

}  // namespace lower
