// Interpreter API: module loading, calls from C++, limits, imports.
#include "nki/interpreter.h"

#include <optional>
#include <set>

#include <fmt/core.h>

#include "base/cpu_clock.h"
#include "nki/exceptions.h"
#include "nki/interp_impl.h"
#include "nki/parser.h"
#include "nki/resolver.h"
#include "tensor/array.h"

namespace nki {

namespace {

constexpr uint64_t kClockCheckInterval = 4096;  // steps between wall-clock reads

// The roots a kernel or reference may import from.
// Only registered modules (and the packages above them) can be imported: the registry is the
// sandbox's list of importable code.
bool allowed_root(const InterpState& st, const std::string& root) {
  for (auto& [name, factory] : st.factories)
    if (name == root || name.rfind(root + ".", 0) == 0) return true;
  return false;
}

std::string importable_roots(const InterpState& st) {
  std::set<std::string> roots;
  for (auto& [name, factory] : st.factories) roots.insert(name.substr(0, name.find('.')));
  std::string out;
  for (auto& r : roots) out += (out.empty() ? "" : ", ") + r;
  return out;
}

struct UnboundObj : Object {
  std::string type_name() const override { return "unbound"; }
};

std::string module_name_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

// The module's docstring (a string literal as its first statement), else None: Python's __doc__.
Value module_docstring(const ModuleAst& ast) {
  if (ast.body.empty() || ast.body.front()->kind != StmtKind::Expr) return Value();
  const auto& e = static_cast<const ExprStmt&>(*ast.body.front());
  if (!e.value || e.value->kind != ExprKind::Constant) return Value();
  const Value& v = static_cast<const ConstantExpr&>(*e.value).value;
  return v.as<StrObj>() ? v : Value();
}

// Turns any exception escaping a run into an NkiError located at the innermost user code.
[[noreturn]] void rethrow_as_diagnostic(InterpState& st) {
  auto where = [&]() -> SourceLoc { return st.current_span && st.current_file ? st.loc(*st.current_span) : SourceLoc{}; };
  try {
    throw;
  } catch (NkiError& e) {
    if (!e.diag.loc.known()) e.diag.loc = where();
    throw;
  } catch (const tensor::BudgetExceeded& e) {
    throw NkiError(LimitKind::Memory, e.what(), where());
  } catch (const tensor::ArrayError& e) {
    throw NkiError(ErrorKind::Value, e.what(), where());
  } catch (const std::bad_alloc&) {
    throw NkiError(LimitKind::Memory, "out of memory", where());
  } catch (const std::exception& e) {
    throw NkiError(ErrorKind::Internal, fmt::format("internal error: {}", e.what()), where());
  }
}

// Installs the allocation budget and the deadline for an outermost entry from C++.
class RunScope {
 public:
  explicit RunScope(InterpState& st) : st_(st), saved_span_(st.current_span), saved_file_(st.current_file) {
    if (st_.entry_depth++ > 0) return;
    budget_.emplace(st_.limits.max_bytes);
    if (!st_.deadlines_set) {
      auto seconds = std::chrono::duration<double>(st_.limits.max_seconds);
      st_.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(seconds);
      st_.cpu_deadline = st_.limits.max_cpu_seconds > 0 ? base::thread_cpu_seconds() + st_.limits.max_cpu_seconds : 0;
      st_.quoted = {st_.deadline, st_.cpu_deadline, st_.limits.max_seconds, st_.limits.max_cpu_seconds};
      st_.deadlines_set = true;
    }
    st_.next_check = std::min(st_.limits.max_steps + 1, st_.steps + kClockCheckInterval);
  }
  ~RunScope() {
    --st_.entry_depth;
    st_.current_span = saved_span_;
    st_.current_file = saved_file_;
  }

 private:
  InterpState& st_;
  std::optional<tensor::AllocationBudget> budget_;
  const Span* saved_span_;
  const std::shared_ptr<const SourceFile>* saved_file_;
};

}  // namespace

const char* symbol(CmpKind k) {
  static const char* const kSymbols[] = {"==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"};
  return kSymbols[static_cast<int>(k)];
}

const Value& unbound() {
  static const Value kUnbound(std::make_shared<UnboundObj>());
  return kUnbound;
}

void ModuleEnv::publish() {
  const auto& names = ast->global_names;
  for (size_t i = 0; i < names.size() && i < globals.size(); ++i)
    if (!is_unbound(globals[i])) module->attrs[names[i]] = globals[i];
}

void InterpState::check_limits() {
  // The statement being executed (when known) locates the error.
  SourceLoc where = current_span && current_file ? loc(*current_span) : SourceLoc{};
  if (steps > limits.max_steps)
    throw NkiError(LimitKind::Steps, fmt::format("step limit of {} exceeded", limits.max_steps), where);
  if (cpu_deadline > 0 && base::thread_cpu_seconds() > cpu_deadline)
    throw NkiError(LimitKind::Time,
                   fmt::format("CPU time limit of {} seconds exceeded (CPU time, so the machine's load does not count)",
                               quoted.max_cpu_seconds),
                   where);
  if (deadline != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() > deadline) {
    if (cpu_deadline <= 0)
      throw NkiError(LimitKind::Time, fmt::format("time limit of {} seconds exceeded", quoted.max_seconds), where);
    double used = quoted.max_cpu_seconds - (cpu_deadline - base::thread_cpu_seconds());
    throw NkiError(LimitKind::WallTime,
                   fmt::format("wall-clock backstop of {} seconds reached with {:.1f} of the {} seconds of CPU time "
                               "used: the machine is too loaded to finish the run (the kernel was not judged)",
                               quoted.max_seconds, used, quoted.max_cpu_seconds),
                   where);
  }
  next_check = std::min(limits.max_steps + 1, steps + kClockCheckInterval);
}

void InterpState::fail(ErrorKind kind, const Span& s, std::string message) const {
  throw NkiError(kind, std::move(message), current_file ? loc(s) : SourceLoc{});
}

namespace detail {

namespace {

}  // namespace

// `a.b` where the loaded module `a` holds a module object `b` (None otherwise).
Value submodule_attribute(InterpState& st, const std::string& name) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return Value();
  auto parent = st.modules.find(name.substr(0, dot));
  if (parent == st.modules.end()) return Value();
  auto* pm = parent->second.as<ModuleObj>();
  if (!pm) return Value();
  auto it = pm->attrs.find(name.substr(dot + 1));
  if (it == pm->attrs.end() || !it->second.as<ModuleObj>()) return Value();
  return it->second;
}

Value load_or_create(InterpState& st, const std::string& name) {
  auto it = st.modules.find(name);
  if (it != st.modules.end()) return it->second;
  Value module;
  auto factory = st.factories.find(name);
  if (factory != st.factories.end()) {
    // A factory may import its own submodules; re-entering it would recurse forever.
    if (!st.loading.insert(name).second) throw NkiError(ErrorKind::Import, fmt::format("circular import of '{}'", name));
    struct Done {
      InterpState& st;
      const std::string& name;
      ~Done() { st.loading.erase(name); }
    } done{st, name};
    module = Value(factory->second(st.in));
  } else if (Value sub = submodule_attribute(st, name); !sub.is_none()) {
    module = sub;  // numpy.random, numpy.linalg: a module object held by its parent
  } else {
    bool is_package = name == "neuronxcc";
    for (auto& [registered, f] : st.factories) is_package |= registered.rfind(name + ".", 0) == 0;
    if (!is_package) throw NkiError(ErrorKind::Import, fmt::format("no module named '{}'", name));
    module = Value(std::make_shared<ModuleObj>(name));
  }
  st.modules.emplace(name, module);
  return module;
}

bool host_only_import(const InterpState& st, std::string_view dotted) {
  std::string name(dotted);
  return st.host_module_binder && !allowed_root(st, name.substr(0, name.find('.')));
}

Value import_module(InterpState& st, std::string_view dotted, bool bind_top) {
  std::string name(dotted);
  std::string root = name.substr(0, name.find('.'));
  if (!allowed_root(st, root))
    throw NkiError(ErrorKind::Import,
                   fmt::format("module '{}' is not available in kernels (importable: {})", name, importable_roots(st)));
  Value top, parent, current;
  size_t pos = 0;
  for (;;) {
    size_t dot = name.find('.', pos);
    std::string prefix = name.substr(0, dot);
    current = load_or_create(st, prefix);
    if (auto* pm = parent.as<ModuleObj>(); pm && !pm->has_attr(prefix.substr(prefix.rfind('.') + 1)))
      pm->attrs[prefix.substr(prefix.rfind('.') + 1)] = current;
    if (top.is_none()) top = current;
    if (dot == std::string::npos) break;
    parent = current;
    pos = dot + 1;
  }
  return bind_top ? top : current;
}

}  // namespace detail

Interpreter::Interpreter(Limits limits) : state_(std::make_unique<InterpState>(*this, limits)) {
  detail::install_builtins(*state_);
  detail::install_exceptions(*state_);
}

Interpreter::~Interpreter() {
  // A module's functions hold its environment, whose globals and namespace hold the functions:
  // without this, every module that defines a function would leak.
  for (auto& weak : state_->loaded_envs) {
    auto env = weak.lock();
    if (!env) continue;
    std::vector<Value> globals = std::move(env->globals);
    std::map<std::string, Value, std::less<>> attrs = std::move(env->module->attrs);
    env->globals.clear();
    env->module->attrs.clear();
  }
}

void Interpreter::set_host_module_binder(HostModuleBinder binder) { state_->host_module_binder = std::move(binder); }
bool Interpreter::at_module_top_level() const {
  return state_->module_loads > 0 && state_->depth == state_->class_bodies;
}

void Interpreter::register_module(std::string name, ModuleFactory factory) {
  state_->modules.erase(name);
  state_->factories[std::move(name)] = std::move(factory);
}

std::shared_ptr<const CompiledModule> Interpreter::compile(std::shared_ptr<const SourceFile> src) {
  InterpState& st = *state_;
  RunScope scope(st);
  if (src->text.size() > st.limits.max_source_bytes)
    throw NkiError(LimitKind::SourceSize,
                   fmt::format("the source file is {} bytes, more than the limit of {} bytes", src->text.size(),
                               st.limits.max_source_bytes),
                   SourceLoc{src, 0, 0, 0});
  auto compiled = std::make_shared<CompiledModule>();
  compiled->ast = parse_module(src);
  resolve_module(*compiled->ast, [&](std::string_view name) -> std::optional<uint32_t> {
    auto it = st.builtin_index.find(std::string(name));
    if (it == st.builtin_index.end()) return std::nullopt;
    compiled->builtins.emplace_back(it->first, it->second);
    return it->second;
  });
  st.check_limits();  // the parse counts against the wall time
  return compiled;
}

std::shared_ptr<ModuleObj> Interpreter::load_module(std::shared_ptr<const SourceFile> src, std::string name) {
  return load_module(compile(std::move(src)), std::move(name));
}

std::shared_ptr<ModuleObj> Interpreter::load_module(const std::shared_ptr<const CompiledModule>& compiled,
                                                    std::string name) {
  InterpState& st = *state_;
  RunScope scope(st);
  for (const auto& [name, index] : compiled->builtins) {
    auto it = st.builtin_index.find(name);
    if (it == st.builtin_index.end() || it->second != index)
      throw NkiError(ErrorKind::Internal, fmt::format("internal error: module compiled against another builtin table "
                                                      "('{}')", name));
  }
  auto env = std::make_shared<ModuleEnv>();
  env->ast = compiled->ast;
  env->globals.assign(env->ast->global_names.size(), unbound());
  env->module = std::make_shared<ModuleObj>(module_name_of(env->ast->file->path));
  env->globals[0] = make_str(name.empty() ? env->module->name : std::move(name));  // __name__ (resolver)
  env->globals[1] = module_docstring(*env->ast);                                    // __doc__ (resolver)
  st.loaded_envs.push_back(env);
  std::vector<Value> slots(env->ast->info.num_slots, unbound());
  for (uint32_t c : env->ast->info.cell_slots) slots[c] = Value(std::make_shared<CellObj>());
  for (uint32_t c : env->ast->info.cell_slots) static_cast<CellObj&>(*slots[c].object()).value = unbound();
  Frame frame;
  frame.slots = slots.data();
  frame.env = env.get();
  detail::FrameCloser closer{frame, slots};
  st.current_file = &env->ast->file;
  st.current_span = nullptr;
  struct Loading {
    int& loads;
    explicit Loading(int& l) : loads(l) { ++loads; }
    ~Loading() { --loads; }
  } loading(st.module_loads);
  try {
    detail::exec_block(st, env->ast->body, frame);
  } catch (...) {
    env->publish();
    rethrow_as_diagnostic(st);
  }
  env->publish();
  return env->module;
}

Value Interpreter::call(const Value& callee, CallArgs args) {
  InterpState& st = *state_;
  RunScope scope(st);
  try {
    return detail::call_value(st, callee, args);
  } catch (...) {
    rethrow_as_diagnostic(st);
  }
}

SourceLoc Interpreter::current_loc() const {
  if (!state_->current_span || !state_->current_file) return {};
  return state_->loc(*state_->current_span);
}

uint64_t Interpreter::native_call() const { return state_->native_call; }
std::string& Interpreter::output() { return state_->output; }
uint64_t Interpreter::steps() const { return state_->steps; }
const Limits& Interpreter::limits() const { return state_->limits; }
void Interpreter::set_limits(const Limits& limits) {
  state_->limits = limits;
  state_->deadline = {};
  state_->cpu_deadline = 0;
  state_->deadlines_set = false;
}
void Interpreter::set_deadlines(const Deadlines& deadlines) {
  state_->deadline = deadlines.wall;
  state_->cpu_deadline = deadlines.thread_cpu;
  state_->quoted = deadlines;
  state_->deadlines_set = true;
}

Value Interpreter::binary(BinOp op, const Value& a, const Value& b) { return detail::binary_op(*state_, op, a, b); }
Value Interpreter::compare(CmpOp op, const Value& a, const Value& b) {
  return detail::compare_op(*state_, static_cast<CmpKind>(static_cast<int>(op)), a, b);
}
Value Interpreter::unary(UnOp op, const Value& v) { return detail::unary_op(*state_, op, v); }
Value Interpreter::get_attr(const Value& obj, std::string_view name) { return detail::get_attribute(*state_, obj, name); }
Value Interpreter::get_item(const Value& obj, const Value& index) {
  if (!obj.is_object()) throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not subscriptable", obj.type_name()));
  return obj.object()->get_item(*this, index);
}
std::unique_ptr<Iterator> Interpreter::iterate(const Value& v) { return detail::iterate(*state_, v); }
bool Interpreter::truthy(const Value& v) { return v.truthy(); }
Value Interpreter::import_module(std::string_view dotted_name) {
  std::string name(dotted_name);
  if (!allowed_root(*state_, name.substr(0, name.find('.'))))
    throw NkiError(ErrorKind::Import, fmt::format("module '{}' is not available in kernels", name));
  return detail::load_or_create(*state_, name);
}
void set_range_loop_observer(Interpreter& in, RangeLoopObserverFactory factory) {
  in.state().range_loop_observer = std::move(factory);
}
bool imported(Interpreter& in, std::string_view name) { return in.state().modules.count(std::string(name)) != 0; }
bool imports_newer_api_only(Interpreter& in) { return imported(in, "nki") && !imported(in, "neuronxcc"); }
void Interpreter::set_builtin(std::string name, Value value) {
  auto it = state_->builtin_index.find(name);
  if (it != state_->builtin_index.end()) {
    state_->builtins[it->second] = std::move(value);
    return;
  }
  state_->builtin_index.emplace(std::move(name), uint32_t(state_->builtins.size()));
  state_->builtins.push_back(std::move(value));
}
void Interpreter::charge_steps(uint64_t n) { state_->charge(n); }

}  // namespace nki
