// Lexer for the Python subset: INDENT/DEDENT from indentation, implicit line joining inside
// brackets, backslash continuation, all literal forms (f-strings are split later by the parser).
#pragma once

#include <memory>

#include "nki/diagnostics.h"
#include "nki/token.h"

namespace nki {

struct LexResult {
  std::vector<Token> tokens;  // ends with End
  std::vector<Comment> comments;
};

// Throws NkiError (Syntax or Unsupported) at the offending character.
LexResult lex(const std::shared_ptr<const SourceFile>& src);

// Deterministic dump for goldens: one token per line, "line:col-end_line:end_col KIND text".
std::string dump_tokens(const LexResult& lexed);

}  // namespace nki
