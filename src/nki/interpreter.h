// The interpreter of the Python subset: loads a module (parse, resolve, execute) and calls its
// functions. One interpreter serves both kernels and numpy references; builtin modules (numpy,
// math, nki) are registered by whoever creates it (see nki/lib/modules.h).
//
// Sandboxed by construction: no file, process, network or reflection builtins exist, dunder names
// are refused, and every run is bounded by Limits (steps, bytes of arrays, wall time, recursion).
// Errors are NkiError with a located Diagnostic. Not thread-safe: one interpreter per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <chrono>
#include <typeindex>
#include <utility>
#include <vector>

#include "nki/diagnostics.h"
#include "nki/value.h"

namespace nki {

struct Limits {
  uint64_t max_steps = 200'000'000;  // statements + expression nodes executed
  uint64_t max_bytes = 8ull << 30;   // bytes of arrays and containers alive at once (tensor::AllocationBudget)
  double max_seconds = 300;          // wall time from the interpreter's first load_module() or call()
  // CPU time of the running thread over the same span; 0 = no CPU limit. When set, it is the time
  // limit (LimitKind::Time) and max_seconds only a wall-clock backstop (LimitKind::WallTime): the
  // verdict on a kernel then does not depend on the machine's load.
  double max_cpu_seconds = 0;
  int max_depth = 200;               // nested user-function calls
  uint64_t max_source_bytes = 1ull << 20;  // size of one source file (kernels are tens of KB)
};

struct InterpState;  // internal (interp_impl.h)
struct ModuleAst;

// A source file parsed and resolved once (Interpreter::compile), loadable into any interpreter
// whose builtins were installed the same way: the evaluation parses a kernel once and runs it in
// a fresh interpreter per seed. Immutable once compiled, except for the AST's inline caches.
struct CompiledModule {
  std::shared_ptr<ModuleAst> ast;
  // The builtin names the resolver bound, with their indices: load_module checks that the
  // loading interpreter has the same table.
  std::vector<std::pair<std::string, uint32_t>> builtins;
};

class Interpreter {
 public:
  explicit Interpreter(Limits limits = {});
  // Breaks the reference cycles of the modules it loaded (module -> function -> globals ->
  // module), so that nothing an interpreter created outlives it by accident.
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  using ModuleFactory = std::function<ObjectPtr(Interpreter&)>;
  // Makes `import name` (and `from name import x`) possible; the factory runs once, lazily.
  void register_module(std::string name, ModuleFactory factory);
  // What an import of a module outside the registry binds: `binder(module, path)` gives the
  // value of `path` (the module itself, or `module.name` of a from-import). Unset: such an
  // import is an Import error. Nothing of the module is ever loaded (harness code: os, torch).
  using HostModuleBinder = std::function<Value(const std::string& module, const std::string& path)>;
  void set_host_module_binder(HostModuleBinder binder);
  // Whether a load_module() is executing statements of a module body itself (its top level or
  // the body of a class defined there, not a function called from them).
  bool at_module_top_level() const;
  // Parses, resolves and executes a source file; returns its namespace. Throws NkiError.
  // `__name__` is `name` (default: the file's stem, as for an imported module; a script run as
  // a program passes "__main__", so `if __name__ == "__main__":` blocks run only then).
  std::shared_ptr<ModuleObj> load_module(std::shared_ptr<const SourceFile> src, std::string name = "");
  // Parses and resolves a source file without running it (a SourceSize limit, Syntax,
  // Unsupported or Sandbox error otherwise). The parse counts against the time limit.
  std::shared_ptr<const CompiledModule> compile(std::shared_ptr<const SourceFile> src);
  // Executes a compiled module in this interpreter (`__name__` as above); returns its namespace.
  // Throws NkiError.
  std::shared_ptr<ModuleObj> load_module(const std::shared_ptr<const CompiledModule>& compiled, std::string name = "");
  // Calls any callable (user function, builtin, library object) from C++. Throws NkiError.
  Value call(const Value& callee, CallArgs args);

  // The innermost user-code location executing (for library diagnostics and trace records).
  SourceLoc current_loc() const;
  // The library call in progress (a number unique to the call; 0 while user code runs).
  uint64_t native_call() const;
  // Per-run state for libraries, keyed by type.
  template <class T>
  T* extension() {
    auto it = extensions_.find(std::type_index(typeid(T)));
    return it == extensions_.end() ? nullptr : static_cast<T*>(it->second.get());
  }
  template <class T>
  void set_extension(std::shared_ptr<T> ext) {
    extensions_[std::type_index(typeid(T))] = std::move(ext);
  }
  std::string& output();  // text printed by print()
  uint64_t steps() const;
  const Limits& limits() const;
  void set_limits(const Limits& limits);
  // Deadlines shared by several interpreters (the seeds of one evaluation, each in its own
  // interpreter): instead of starting the limits' clocks at the first entry, this interpreter
  // stops at these absolute points. Limit errors quote the shared limits.
  struct Deadlines {
    std::chrono::steady_clock::time_point wall;  // {} = none
    double thread_cpu = 0;                       // base::thread_cpu_seconds() value; 0 = none
    double max_seconds = 0, max_cpu_seconds = 0;  // the limits the deadlines come from (messages)
  };
  void set_deadlines(const Deadlines& deadlines);

  // ---- Python semantics for libraries ----
  Value binary(BinOp op, const Value& a, const Value& b);
  Value compare(CmpOp op, const Value& a, const Value& b);
  Value unary(UnOp op, const Value& v);
  Value get_attr(const Value& obj, std::string_view name);
  Value get_item(const Value& obj, const Value& index);
  std::unique_ptr<Iterator> iterate(const Value& v);
  bool truthy(const Value& v);
  // The module registered under a dotted name (Import error when none is).
  Value import_module(std::string_view dotted_name);
  // Adds or replaces a builtin name visible to code loaded afterwards.
  void set_builtin(std::string name, Value value);
  // Charges `n` steps to the step limit (libraries doing work proportional to Python loops).
  void charge_steps(uint64_t n);

  InterpState& state() { return *state_; }

 private:
  std::unique_ptr<InterpState> state_;
  std::map<std::type_index, std::shared_ptr<void>> extensions_;
};

}  // namespace nki
