// Internal state and evaluation entry points of the interpreter, shared by interpreter.cpp,
// interp_expr.cpp, interp_stmt.cpp, operators.cpp and builtins.cpp.
#pragma once

#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "nki/ast.h"
#include "nki/core_types.h"
#include "nki/interpreter.h"
#include "nki/range_loops.h"

namespace nki {

// The globals of one loaded module, shared by every function defined in it.
struct ModuleEnv : std::enable_shared_from_this<ModuleEnv> {
  std::shared_ptr<ModuleAst> ast;
  std::vector<Value> globals;
  std::shared_ptr<ModuleObj> module;
  void publish();  // copies bound globals into module->attrs
};

struct FunctionObj : Object {
  static constexpr ObjType kType = ObjType::Function;
  std::shared_ptr<FunctionCode> code;
  std::shared_ptr<ModuleEnv> env;
  std::vector<Value> defaults;  // one per parameter; unbound() when the parameter has none
  std::vector<std::shared_ptr<CellObj>> closure;
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "function"; }
  std::string repr() const override { return "<function " + code->name + ">"; }
  Value call(Interpreter& in, CallArgs& args) override;
};

// The marker held by a variable that has no value yet.
const Value& unbound();
inline bool is_unbound(const Value& v) { return v.is_object() && v.object() == unbound().object(); }

struct FrameLife;

struct Frame {
  Value* slots = nullptr;
  FunctionObj* fn = nullptr;  // null for the module body
  ModuleEnv* env = nullptr;
  Value ret;
  // Set by the first generator expression the frame creates (lazy_generator in interp_expr.cpp):
  // what the generator evaluates its clauses in, which outlives the frame if the generator does.
  std::shared_ptr<FrameLife> life;
  FrameLife* closed_in = nullptr;  // set on the copy of an ended frame that its generators run in
};

// The frame a generator expression runs in. While the frame that created the generator runs, its
// slots (`live`); once it has ended, a copy of them (`closed`), so that a generator returned or
// stored and consumed later sees what Python's would: the enclosing names' last values.
struct FrameLife : std::enable_shared_from_this<FrameLife> {
  Frame* live = nullptr;
  Frame closed;
  std::vector<Value> slots;             // the storage of `closed`
  std::shared_ptr<Object> keep_fn;      // keeps `closed.fn` (and its module env) alive
  Frame& frame() { return live ? *live : closed; }
};

namespace detail {
// Called when a frame ends (its slots are about to go): generators still alive move to a copy of
// the slots. Nothing to do when the frame created no generator or they are all gone.
void close_frame(Frame& f, const std::vector<Value>& slots);
// Ends the frame on scope exit, exceptions included (declare it after the frame and its slots).
struct FrameCloser {
  Frame& f;
  const std::vector<Value>& slots;
  ~FrameCloser() {
    if (f.life) close_frame(f, slots);
  }
};
}  // namespace detail

enum class Flow : uint8_t { Normal, Break, Continue, Return };

struct InterpState {
  explicit InterpState(Interpreter& i, Limits l) : in(i), limits(l) {}
  Interpreter& in;
  Limits limits;
  uint64_t steps = 0;
  uint64_t next_check = 0;  // steps at which to look at the limits and the clock again
  std::chrono::steady_clock::time_point deadline;  // wall clock; {} until the first entry
  double cpu_deadline = 0;                          // thread CPU clock; 0 = none
  bool deadlines_set = false;                       // set_deadlines() or the first entry fixed them
  Interpreter::Deadlines quoted;                    // the limits the errors quote
  int depth = 0;        // user-function calls in progress
  int entry_depth = 0;  // nested load_module()/call() entries from C++
  // The library (native) call in progress: a serial number unique to each call, 0 while user
  // code runs. The NKI library groups the instructions one call emits (kernel_context.h).
  uint64_t native_call = 0;
  uint64_t native_calls = 0;  // native calls started so far (the last serial handed out)
  std::string output;
  // Builtin names: index resolved at load time.
  std::vector<Value> builtins;
  std::unordered_map<std::string, uint32_t> builtin_index;
  // Module registry.
  std::unordered_map<std::string, Interpreter::ModuleFactory> factories;
  std::unordered_map<std::string, Value> modules;
  RangeLoopObserverFactory range_loop_observer;  // unset: range loops are not observed
  Interpreter::HostModuleBinder host_module_binder;  // unset: an unregistered import is an error
  int module_loads = 0;                              // load_module() bodies executing
  int class_bodies = 0;                              // class bodies executing (calls counted in depth)
  std::unordered_set<std::string> loading;  // factories running now
  // Exceptions being handled by `except` blocks (innermost last): what a bare `raise` re-raises.
  std::vector<NkiError> handling;
  // Every module environment loaded, so that ~Interpreter can break their reference cycles.
  std::vector<std::weak_ptr<ModuleEnv>> loaded_envs;
  // Innermost user-code position, for diagnostics and current_loc().
  const Span* current_span = nullptr;
  const std::shared_ptr<const SourceFile>* current_file = nullptr;

  void check_limits();  // slow path of charge()
  void charge(uint64_t n) {
    steps += n;
    if (steps >= next_check) check_limits();
  }
  SourceLoc loc(const Span& s) const { return loc_of(*current_file, s); }
  [[noreturn]] void fail(ErrorKind kind, const Span& s, std::string message) const;
};

namespace detail {

// Expressions (interp_expr.cpp).
Value eval(InterpState& st, const Expr& e, Frame& f);
Value call_value(InterpState& st, const Value& callee, CallArgs& args);
Value get_attribute(InterpState& st, const Value& obj, std::string_view name);
std::unique_ptr<Iterator> iterate(InterpState& st, const Value& v);
// Statements (interp_stmt.cpp).
Flow exec_block(InterpState& st, const Block& block, Frame& f);
[[noreturn]] void rethrow_at(InterpState& st, const Span& span);  // locates an error in flight
void store_name(InterpState& st, const NameExpr& n, const Value& v, Frame& f);
// with / try / raise / class / del (interp_scoped.cpp).
Flow exec_with(InterpState& st, const WithStmt& w, Frame& f, size_t item = 0);
Flow exec_try(InterpState& st, const TryStmt& t, Frame& f);
[[noreturn]] void exec_raise(InterpState& st, const RaiseStmt& r, Frame& f);
void exec_class_def(InterpState& st, const ClassDefStmt& c, Frame& f);
void exec_delete(InterpState& st, const DeleteStmt& d, Frame& f);
void assign(InterpState& st, const Expr& target, const Value& value, Frame& f);
// `keep_slots`: receives the frame's final slot values (class bodies).
Value call_function(InterpState& st, FunctionObj& fn, CallArgs& args, std::vector<Value>* keep_slots = nullptr);
Value make_function(InterpState& st, const std::shared_ptr<FunctionCode>& code, Frame& f);
// Operators (operators.cpp).
Value binary_op(InterpState& st, BinOp op, const Value& a, const Value& b);
Value compare_op(InterpState& st, CmpKind op, const Value& a, const Value& b);
Value unary_op(InterpState& st, UnOp op, const Value& v);
std::optional<Value> inplace_op(InterpState& st, BinOp op, const Value& target, const Value& v);
// Builtins (builtins.cpp) and the sandbox's refusals.
void install_builtins(InterpState& st);
const char* forbidden_reason(std::string_view name);  // nullptr when the name is not forbidden
// Imports (interpreter.cpp).
Value import_module(InterpState& st, std::string_view dotted, bool bind_top);
// Whether `dotted` lies outside the registry and the host-module binder is set: such an
// import binds host_module_binder's placeholder instead of loading anything.
bool host_only_import(const InterpState& st, std::string_view dotted);
Value load_or_create(InterpState& st, const std::string& name);  // exactly this module

}  // namespace detail
}  // namespace nki
