// Python operators on tiles and the nl functions they are (nki-language.md: `a * b` of tiles is
// nl.multiply(a, b)). The lift records an operator's op with origin_api "operator <symbol>", so a
// changed statement prints the author's `a * b` again rather than `nl.multiply(x=a, y=b)`.
#pragma once

#include <string>
#include <string_view>

namespace loopnest {

// The nl function of a binary or comparison operator symbol ("" when none).
inline std::string_view operator_api(std::string_view symbol) {
  static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
      {"+", "nl.add"},          {"-", "nl.subtract"},       {"*", "nl.multiply"},       {"/", "nl.divide"},
      {"**", "nl.power"},       {"&", "nl.bitwise_and"},    {"|", "nl.bitwise_or"},     {"^", "nl.bitwise_xor"},
      {"<<", "nl.left_shift"},  {">>", "nl.right_shift"},   {"<", "nl.less"},           {"<=", "nl.less_equal"},
      {">", "nl.greater"},      {">=", "nl.greater_equal"}, {"==", "nl.equal"},         {"!=", "nl.not_equal"}};
  for (const auto& [s, api] : kOps)
    if (s == symbol) return api;
  return "";
}

inline constexpr std::string_view kOperatorOrigin = "operator ";

// The origin_api the lift records for an operator's op.
inline std::string operator_origin(std::string_view symbol) { return std::string(kOperatorOrigin) + std::string(symbol); }

// The symbol of an operator origin_api whose function is still `api` ("" otherwise); `-` of one
// operand is nl.negative.
inline std::string_view operator_symbol(const std::string& origin_api, const std::string& api) {
  if (origin_api.rfind(kOperatorOrigin, 0) != 0) return "";
  std::string_view symbol = std::string_view(origin_api).substr(kOperatorOrigin.size());
  return operator_api(symbol) == api || (symbol == "-" && api == "nl.negative") ? symbol : "";
}

}  // namespace loopnest
