// Typed failures of the evaluation pipeline (eval/pipeline.cpp): where it happened (Stage), what
// kind of error (nki::ErrorKind, and for limits nki::LimitKind), where in which file, and the
// message. classify() is the only place that turns a failure into a Status: no status is ever
// decided by reading message text (tests/unit/eval/classify_test.cpp has the table).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "eval/status.h"
#include "nki/diagnostics.h"

namespace eval {

// The steps of the pipeline, in order.
enum class Stage : uint8_t {
  ReadKernel,     // reading and decoding the kernel file (size cap, UTF-8)
  ParseKernel,    // lexing, parsing and resolving the kernel
  Reference,      // anything in the task's reference: read, parse, get_inputs, forward, transforms
  RunKernel,      // loading the kernel module and running it with numerics
  Compare,        // output count, shapes and values against the reference
  Guard,          // the checker's rules: inputs unchanged, outputs follow the inputs
  Precision,      // float formats used below the task's data
  Lower,          // the compiler stage between trace and simulator
  Simulate,       // the NeuronCore simulator
  Internal,       // the pipeline itself
};
const char* to_string(Stage s);

// One failure, as a value. `kind` is nki::ErrorKind: the language core's kinds for kernel and
// reference errors; Rule for a hardware rule the simulator enforces (a tile that cannot fit);
// Value for a wrong output; Internal for our bugs.
struct Failure {
  Stage stage = Stage::Internal;
  nki::ErrorKind kind = nki::ErrorKind::Internal;
  nki::LimitKind limit = nki::LimitKind::None;
  std::string file;            // "" when no file is involved
  uint32_t line = 0, col = 0;  // 1-based; 0 = unknown
  std::string message;
};

// The status a failure gives the evaluation (the table of docs/evaluation.md "Statuses").
Status classify(Stage stage, nki::ErrorKind kind, nki::LimitKind limit);
inline Status classify(const Failure& f) { return classify(f.stage, f.kind, f.limit); }

// A failure from a language-core error raised during `stage`.
Failure failure_of(Stage stage, const nki::Diagnostic& diagnostic);

nlohmann::json to_json(const Failure& f);
Failure failure_from_json(const nlohmann::json& j);

}  // namespace eval

namespace eval {

// A failure on its way out of the pipeline: the typed value and its compiler-style rendering
// (made where the source text is at hand: file:line:col, the line, a caret).
struct Failed {
  Failure failure;
  std::string rendered;
};

// From a language-core error: rendered with nki::render (source line and caret).
Failed failed(Stage stage, const nki::NkiError& error);
// From a failure outside the language core: rendered as `file:line:col: error: message`.
Failed failed(Failure failure);
// From any exception escaping a stage: NkiError keeps its kind and location, a simulator
// AllocationError is a Rule (a tile that cannot fit), anything else Internal.
Failed failed_from_current_exception(Stage stage, const std::string& file = "");

}  // namespace eval
