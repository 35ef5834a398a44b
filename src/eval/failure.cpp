#include "eval/failure.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "trn/memory_model.h"

namespace eval {
namespace {

using nki::ErrorKind;
using nki::LimitKind;

constexpr std::array<std::pair<Stage, const char*>, 10> kStageNames = {{
    {Stage::ReadKernel, "read_kernel"},
    {Stage::ParseKernel, "parse_kernel"},
    {Stage::Reference, "reference"},
    {Stage::RunKernel, "run_kernel"},
    {Stage::Compare, "compare"},
    {Stage::Guard, "guard"},
    {Stage::Precision, "precision"},
    {Stage::Lower, "lower"},
    {Stage::Simulate, "simulate"},
    {Stage::Internal, "internal"},
}};

// The kernel file is not a program we accept: it never ran.
bool is_compile_kind(ErrorKind k) {
  return k == ErrorKind::Syntax || k == ErrorKind::Unsupported || k == ErrorKind::Import || k == ErrorKind::Name ||
         k == ErrorKind::Sandbox || k == ErrorKind::HostOnly || k == ErrorKind::UnknownKeyword;
}

// A limit reached by the kernel: time and steps are a timeout, memory and output a resource
// error, nesting and size mean the file cannot be compiled, recursion is a runtime error (as
// Python's RecursionError).
Status status_of_limit(LimitKind limit) {
  switch (limit) {
    case LimitKind::Steps:
    case LimitKind::Time: return Status::Timeout;
    case LimitKind::WallTime: return Status::Unfinished;
    case LimitKind::Memory:
    case LimitKind::Output: return Status::ResourceError;
    case LimitKind::SourceSize:
    case LimitKind::Nesting: return Status::CompileError;
    case LimitKind::Depth: return Status::RuntimeError;
    case LimitKind::None: break;
  }
  return Status::InternalError;  // a Limit error without its kind is our bug
}

// The kernel's own stages: reading, parsing, running.
Status status_of_kernel_error(Stage stage, ErrorKind kind, LimitKind limit) {
  if (kind == ErrorKind::Limit) return status_of_limit(limit);
  if (stage == Stage::ReadKernel || stage == Stage::ParseKernel || is_compile_kind(kind)) return Status::CompileError;
  return Status::RuntimeError;
}

// After the trace: the compiler stage and the simulator. A hardware rule they enforce (a tile
// that can never fit in SBUF or PSUM) is the kernel's resource error; anything else is ours.
Status status_of_backend_error(ErrorKind kind) {
  return kind == ErrorKind::Rule ? Status::ResourceError : Status::InternalError;
}

}  // namespace

const char* to_string(Stage s) {
  for (const auto& [stage, name] : kStageNames)
    if (stage == s) return name;
  return "internal";
}

Status classify(Stage stage, ErrorKind kind, LimitKind limit) {
  if (kind == ErrorKind::Internal) return Status::InternalError;
  // The evaluation ran out of steps or CPU time, whichever step was running; or the machine was
  // too loaded to finish it within the wall-clock backstop (not the kernel's verdict).
  if (kind == ErrorKind::Limit && (limit == LimitKind::Steps || limit == LimitKind::Time)) return Status::Timeout;
  if (kind == ErrorKind::Limit && limit == LimitKind::WallTime) return Status::Unfinished;
  switch (stage) {
    case Stage::ReadKernel:
    case Stage::ParseKernel:
    case Stage::RunKernel: return status_of_kernel_error(stage, kind, limit);
    case Stage::Reference: return Status::InternalError;  // a broken task is not the kernel's fault
    case Stage::Compare:
    case Stage::Guard: return Status::Incorrect;
    case Stage::Precision: return Status::LowerPrecision;
    case Stage::Lower:
    case Stage::Simulate: return status_of_backend_error(kind);
    case Stage::Internal: break;
  }
  return Status::InternalError;
}

Failure failure_of(Stage stage, const nki::Diagnostic& d) {
  Failure f;
  f.stage = stage;
  f.kind = d.kind;
  f.limit = d.limit;
  if (d.loc.file) f.file = d.loc.file->path;
  f.line = d.loc.line;
  f.col = d.loc.col;
  f.message = d.message;
  return f;
}

nlohmann::json to_json(const Failure& f) {
  return {{"stage", to_string(f.stage)}, {"kind", nki::to_string(f.kind)}, {"limit", nki::to_string(f.limit)},
          {"file", f.file},          {"line", f.line},                   {"col", f.col},
          {"message", f.message}};
}

namespace {

template <class Enum, class Names>
Enum parse_name(const nlohmann::json& j, const char* field, Enum fallback, const Names& names) {
  std::string s = j.value(field, std::string());
  for (const auto& [value, name] : names)
    if (s == name) return value;
  return fallback;
}

template <class Enum, int N>
std::array<std::pair<Enum, const char*>, N> enum_names() {
  std::array<std::pair<Enum, const char*>, N> out{};
  for (int i = 0; i < N; ++i) out[size_t(i)] = {Enum(i), nki::to_string(Enum(i))};
  return out;
}

}  // namespace

Failure failure_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("evaluation JSON: 'failure' must be an object");
  Failure f;
  f.stage = parse_name(j, "stage", Stage::Internal, kStageNames);
  f.kind = parse_name(j, "kind", ErrorKind::Internal, enum_names<ErrorKind, int(ErrorKind::Internal) + 1>());
  f.limit = parse_name(j, "limit", LimitKind::None, enum_names<LimitKind, int(LimitKind::WallTime) + 1>());
  f.file = j.value("file", std::string());
  f.line = j.value("line", 0u);
  f.col = j.value("col", 0u);
  f.message = j.value("message", std::string());
  return f;
}

Failed failed(Stage stage, const nki::NkiError& error) {
  return Failed{failure_of(stage, error.diag), nki::render(error.diag)};
}

Failed failed(Failure failure) {
  std::string where;
  if (!failure.file.empty()) where = failure.file + ":";
  if (!failure.file.empty() && failure.line > 0) where += fmt::format("{}:{}:", failure.line, std::max(failure.col, 1u));
  std::string rendered = fmt::format("{}{}error: {}", where, where.empty() ? "" : " ", failure.message);
  return Failed{std::move(failure), std::move(rendered)};
}

Failed failed_from_current_exception(Stage stage, const std::string& file) {
  try {
    throw;
  } catch (const Failed& f) {
    return f;
  } catch (const nki::NkiError& e) {
    if (e.diag.loc.known() || file.empty()) return failed(stage, e);
    // Raised outside any statement (e.g. checking what the kernel returned): name the file.
    return failed(Failure{stage, e.diag.kind, e.diag.limit, file, 0, 0, e.diag.message});
  } catch (const trn::AllocationError& e) {
    return failed(Failure{stage, ErrorKind::Rule, LimitKind::None, file, e.line, 0, e.what()});
  } catch (const std::bad_alloc&) {
    return failed(Failure{stage, ErrorKind::Limit, LimitKind::Memory, file, 0, 0, "out of memory"});
  } catch (const std::exception& e) {
    return failed(Failure{stage, ErrorKind::Internal, LimitKind::None, file, 0, 0,
                          fmt::format("internal error in stage {}: {}", to_string(stage), e.what())});
  }
}

}  // namespace eval
