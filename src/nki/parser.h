// Recursive-descent parser for the Python subset kernels and references are written in.
// Constructs outside the subset raise an Unsupported diagnostic naming the feature.
#pragma once

#include <memory>

#include "nki/ast.h"
#include "nki/diagnostics.h"

namespace nki {

// Lexes and parses a whole file; comments are attached to statements. Throws NkiError.
std::shared_ptr<ModuleAst> parse_module(const std::shared_ptr<const SourceFile>& src);

}  // namespace nki
