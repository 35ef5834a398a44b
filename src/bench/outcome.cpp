#include "bench/outcome.h"

#include <string_view>

namespace bench {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::Ok: return "ok";
    case Outcome::CompileError: return "compile_error";
    case Outcome::RuntimeError: return "runtime_error";
    case Outcome::Incorrect: return "incorrect";
    case Outcome::Timeout: return "timeout";
    case Outcome::LowerPrecision: return "lower_precision";
    case Outcome::InternalError: return "internal_error";
  }
  return "internal_error";
}

namespace {
bool is_time_limit(const nki::NkiError& e) {
  std::string_view m = e.diag.message;
  return m.find("time") != std::string_view::npos || m.find("steps") != std::string_view::npos;
}
}  // namespace

Outcome outcome_of(const nki::NkiError& e, Side side) {
  if (e.diag.kind == nki::ErrorKind::Limit && is_time_limit(e)) return Outcome::Timeout;
  if (side == Side::Reference || e.diag.kind == nki::ErrorKind::Internal) return Outcome::InternalError;
  switch (e.diag.kind) {
    case nki::ErrorKind::Syntax:
    case nki::ErrorKind::Unsupported:
    case nki::ErrorKind::Import:
    case nki::ErrorKind::Name:
    case nki::ErrorKind::Sandbox: return Outcome::CompileError;
    default: return Outcome::RuntimeError;
  }
}

}  // namespace bench
