// Python operators on tiles and the nl functions they are (nki-language.md: `a * b` of tiles is
// nl.multiply(a, b)). The lift records an operator's op with origin_api "operator <symbol>", so a
// changed statement prints the author's `a * b` again rather than `nl.multiply(x=a, y=b)`.
#pragma once

#include <string>
#include <string_view>

namespace loopnest {

// The nl function of an operator symbol applied to `operands` tiles or numbers (2: `a * b`, `d <=
// 8.0`; 1: `-a`), "" when none.
inline std::string_view operator_api(std::string_view symbol, int operands = 2) {
  struct Entry {
    std::string_view symbol;
    int operands;
    std::string_view api;
  };
  static constexpr Entry kOps[] = {
      {"+", 2, "nl.add"},          {"-", 2, "nl.subtract"},       {"*", 2, "nl.multiply"},   {"/", 2, "nl.divide"},
      {"**", 2, "nl.power"},       {"&", 2, "nl.bitwise_and"},    {"|", 2, "nl.bitwise_or"}, {"^", 2, "nl.bitwise_xor"},
      {"<<", 2, "nl.left_shift"},  {">>", 2, "nl.right_shift"},   {"<", 2, "nl.less"},       {"<=", 2, "nl.less_equal"},
      {">", 2, "nl.greater"},      {">=", 2, "nl.greater_equal"}, {"==", 2, "nl.equal"},     {"!=", 2, "nl.not_equal"},
      {"-", 1, "nl.negative"}};
  for (const auto& e : kOps)
    if (e.symbol == symbol && e.operands == operands) return e.api;
  return "";
}

inline constexpr std::string_view kOperatorOrigin = "operator ";

// The origin_api the lift records for an operator's op.
inline std::string operator_origin(std::string_view symbol) { return std::string(kOperatorOrigin) + std::string(symbol); }

// The operator an op's origin_api records (`*`), while its function of `operands` operands is still
// `api` ("" otherwise; not api.h's operator_symbol, the ALU name of a function).
inline std::string_view written_operator(const std::string& origin_api, const std::string& api, int operands) {
  if (origin_api.rfind(kOperatorOrigin, 0) != 0) return "";
  std::string_view symbol = std::string_view(origin_api).substr(kOperatorOrigin.size());
  return operator_api(symbol, operands) == api ? symbol : "";
}

}  // namespace loopnest
