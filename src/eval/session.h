// One interpreter session of an evaluation: a fresh interpreter with the builtin modules (numpy,
// math, nki). Each seed of a check runs in its own session, so nothing a kernel or a reference
// keeps in module state survives to the next seed. Sources are compiled once (compile) and
// loaded into every session (load), so a kernel is parsed once per evaluation.
#pragma once

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "nki/interpreter.h"
#include "nki/value.h"
#include "tensor/array.h"

namespace eval {

using Clock = std::chrono::steady_clock;

class Session {
 public:
  // The interpreter gets `limits` and stops at the evaluation's shared `deadlines` (every seed's
  // session draws on one budget). Throws nki::NkiError (a Time or WallTime limit) when none is left.
  Session(const nki::Limits& limits, const nki::Interpreter::Deadlines& deadlines);

  nki::Interpreter& interpreter() { return *in_; }
  // Parses and resolves a source file. Throws nki::NkiError.
  std::shared_ptr<const nki::CompiledModule> compile(const std::string& path, const std::string& text);
  // Runs a compiled module's top level in this session. Throws nki::NkiError.
  std::shared_ptr<nki::ModuleObj> load(const std::shared_ptr<const nki::CompiledModule>& compiled);
  nki::Value call(const nki::Value& fn, std::vector<nki::Value> args);
  // np.random.seed(seed): the reference's get_inputs draws from numpy's global generator.
  void seed_numpy(int seed);

 private:
  std::unique_ptr<nki::Interpreter> in_;
};

// The deadlines of an evaluation that starts now: `limits.max_cpu_seconds` of this thread's CPU
// time (when set) and `limits.max_seconds` of wall time.
nki::Interpreter::Deadlines deadlines_from_now(const nki::Limits& limits);

// The first of `names` the module defines; None when it defines none.
nki::Value find_function(const nki::ModuleObj& module, std::initializer_list<const char*> names);
// The items of a list or tuple; any other value as a list of one.
std::vector<nki::Value> items_of(const nki::Value& v);
// Array values become shape-only arrays (for a trace-only run); others are kept.
nki::Value shape_only(const nki::Value& v);
// The arrays of a value (one array, or a list/tuple of them). Throws nki::NkiError.
std::vector<tensor::Array> arrays_of(nki::Interpreter& in, const nki::Value& v);

}  // namespace eval
