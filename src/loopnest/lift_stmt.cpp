// The lifter's statement walk: imports and Python bindings are followed (and kept as meta nodes
// that print back verbatim), calls become tile operations; loops are lift_loop.cpp's.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "nki/lib/kernel_choice.h"
#include "nki/parser.h"

namespace loopnest {

LiftError::LiftError(nki::Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}

std::string LiftError::render() const { return nki::render(diag); }

namespace detail {

using namespace nki;
using K = AValue::K;

namespace {

// A scalar or tuple argument as the Python value the kernel sees.
AValue scalar_value(const ArgSpec& a) {
  if (a.is_tuple) {
    std::vector<AValue> items;
    for (const auto& x : a.items) items.push_back(scalar_value(x));
    return AValue::of_tuple(std::move(items));
  }
  if (a.is_array) return AValue::of_kind(K::Unknown);
  return a.scalar == static_cast<double>(static_cast<int64_t>(a.scalar)) && a.dtype == "int"
             ? AValue::of_int(static_cast<int64_t>(a.scalar))
             : AValue::of_float(a.scalar);
}

}  // namespace

Lifter::Lifter(std::shared_ptr<const ModuleAst> m, const std::vector<ArgSpec>& args, const FunctionCode& kernel,
               int nc_version, const std::string& bound_as)
    : module(std::move(m)) {
  k.module = module;
  k.nc_version = nc_version;
  fn = &kernel;
  k.function = fn;
  k.name = fn->name;
  // Module level: imports, constants and helper functions the kernel may use.
  for (const auto& s : module->body) {
    if (s->kind == StmtKind::FunctionDef) {
      auto& def = static_cast<const FunctionDefStmt&>(*s);
      if (def.code.get() != fn) {
        helpers[def.code->name] = def.code.get();
        env[def.code->name] = AValue::of_kind(K::Func, "user." + def.code->name);
      }
      continue;
    }
    if (s->kind == StmtKind::ClassDef) {
      declare_class(static_cast<const ClassDefStmt&>(*s));
      continue;
    }
    if (s->kind == StmtKind::Import || s->kind == StmtKind::ImportFrom) {
      import(static_cast<const ImportStmt&>(*s));
    } else if (s->kind == StmtKind::Assign) {
      auto& a = static_cast<const AssignStmt&>(*s);
      // `ROWS = 128`, `ROWS, COLS = 128, 512`, `P = Q = 128`: each name a constant.
      bool names_only = true;
      for (const auto& t : a.targets) {
        bool sequence = t->kind == ExprKind::Tuple || t->kind == ExprKind::List;
        if (t->kind != ExprKind::Name && !sequence) names_only = false;
        if (sequence)
          for (const auto& e : static_cast<const SequenceExpr&>(*t).elts) names_only = names_only && e->kind == ExprKind::Name;
      }
      if (!names_only) continue;
      // A helper the value calls (a kernel factory) sees the module's imports and helpers so far.
      for (const auto& [name, value] : env) globals[name] = value;
      try {
        std::vector<Op> ignored;
        current_ops = &ignored;
        AValue v = eval(*a.value);
        if (!ignored.empty()) continue;
        // Bound in a scope of their own (the module's imports and helpers stay in env).
        std::map<std::string, AValue> module_env;
        module_env.swap(env);
        try {
          for (const auto& t : a.targets) bind_target(*t, v);
        } catch (const LiftError&) {
          env.swap(module_env);
          throw;
        }
        env.swap(module_env);
        for (auto& [name, value] : module_env) globals[name] = value;
      } catch (const LiftError& e) {
        // Not a constant the kernel can use: it stays module code (why, for a kernel a factory
        // makes there: factory_scope).
        for (const auto& t : a.targets)
          if (t->kind == ExprKind::Name) module_refusals.insert_or_assign(static_cast<const NameExpr&>(*t).id, e.diag);
      }
    }
  }
  globals.insert(env.begin(), env.end());
  env.clear();
  launches.clear();  // the module's calls of helpers (a factory) are no launches of the kernel
  bool top_level = false;
  for (const auto& s : module->body)
    top_level = top_level || (s->kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt&>(*s).code.get() == fn);
  if (!top_level) factory_scope(bound_as);
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const Parameter& p = fn->params[i];
    Param param;
    param.name = p.name;
    // The kernel is called with its arguments by position: *args takes what is left (nothing
    // here, the arguments being the task's), a keyword-only parameter its default.
    if (p.kind == ParamKind::VarArgs && i >= args.size()) {
      env[p.name] = AValue::of_tuple({});
      k.params.push_back(param);
      continue;
    }
    if (p.kind == ParamKind::VarArgs) {
      // The arguments left are the tuple's items, each named as its subscript (`inputs[1]`), which
      // is how the text reaches it.
      std::vector<AValue> items;
      for (size_t j = i; j < args.size(); ++j) items.push_back(bind_argument(args[j], fmt::format("{}[{}]", p.name, j - i)));
      env[p.name] = AValue::of_tuple(std::move(items));
      continue;
    }
    if (p.kind == ParamKind::VarKwargs) {
      // The kernel is called with its arguments by position (as run_kernel does): no keyword reaches it.
      env[p.name] = AValue::of_kind(K::Dict);
      continue;
    }
    if (p.kind == ParamKind::KeywordOnly && !p.default_value)
      fail(p.span, fmt::format("the keyword-only kernel parameter '{}' without a default (the kernel is called "
                               "with its arguments by position)", p.name));
    if (i >= args.size() || p.kind == ParamKind::KeywordOnly) {
      if (p.default_value) {
        std::vector<Op> ignored;
        current_ops = &ignored;
        env[p.name] = eval(*p.default_value);
        k.params.push_back(param);
        continue;
      }
      fail(p.span, fmt::format("the kernel argument '{}' (its shape is not known: give the task's reference)", p.name));
    }
    env[p.name] = bind_argument(args[i], p.name);
  }
}

// A kernel made by a factory (`def make_kernel(tile=512): @nki.jit def k(x): ...; return k`, bound
// at the top level by `kernel = make_kernel()`): the module-level evaluation of that call (the
// constructor's pass over the module) ran the factory and returned the def with the factory's
// names (Python's closure: its arguments and locals as they are when it returns). The kernel's
// body sees them as constants of the trace, as the interpreter's run does.
void Lifter::factory_scope(const std::string& bound_as) {
  auto it = globals.find(bound_as);
  bool made = it != globals.end() && it->second.k == K::Func && it->second.attrs &&
              it->second.s == "user." + fn->name && helpers.count(fn->name) && helpers.at(fn->name) == fn;
  // The factory's call failing to lift is why: its error points at the construct.
  if (!made && module_refusals.count(bound_as)) throw LiftError(module_refusals.at(bound_as));
  if (!made)
    fail(fn->span, fmt::format("the kernel '{}' defined inside a function: the module's '{}' is not "
                               "bound at its top level to a call of that function returning it",
                               fn->name, bound_as.empty() ? fn->name : bound_as));
  env = *it->second.attrs;
  // The kernel's own name in there is the factory's local (a plain function value): not a helper
  // the body may inline.
  env.erase(fn->name);
}

AValue Lifter::bind_argument(const ArgSpec& a, const std::string& name) {
  Param param;
  param.name = name;
  if (a.is_tuple) {
    param.passed = a;
    k.params.push_back(param);
    return scalar_value(a);
  }
  if (!a.is_array) {
    param.scalar = a.scalar;
    param.passed = a;
    k.params.push_back(param);
    return scalar_value(a);
  }
  Tensor t;
  t.name = name;
  t.role = TensorRole::Argument;
  t.memory = Memory::Hbm;
  t.partition_dim = -1;
  t.dtype = a.dtype;
  for (int64_t d : a.shape) t.shape.push_back(IExpr(d));
  param.tensor = new_tensor(std::move(t));
  k.params.push_back(param);
  return AValue::of_tile(whole(param.tensor));
}

int Lifter::new_tensor(Tensor t) { return add_tensor(k, std::move(t)); }

Node Lifter::new_node(NodeKind kind, const Stmt& origin) {
  Node n;
  n.kind = kind;
  n.id = k.next_node++;
  n.origin = &origin;
  return n;
}

void Lifter::push_meta(const Stmt& s, MetaKind meta, std::vector<Node>& out) {
  Node n = new_node(NodeKind::Meta, s);
  n.meta = meta;
  out.push_back(std::move(n));
}

Node Lifter::ops_node(const Stmt& s, std::vector<Op> ops) {
  Node n = new_node(NodeKind::Stmt, s);
  n.ops = std::move(ops);
  // The random-number generator's state is an ordered effect: each draw's values depend on every
  // seed and draw before it, which no dependence on tiles shows. A statement seeding or drawing
  // stays as written, where it is (frozen: no move changes it, and the moves that reorder, fuse,
  // split or coarsen loops refuse a loop holding a frozen statement), and the loops around it
  // carry the state from one iteration to the next (sequential_random_loops). A gather's rows are
  // data (loopnest::gathers): frozen the same way, no move has a rule for them.
  for (const auto& op : n.ops) n.frozen = n.frozen || is_random(op.api) || indirect_dma(op);
  if (!pending_inline.empty()) {
    n.kind = NodeKind::Inline;
    n.inline_split = pending_inline.front().ops_before;
    for (auto& p : pending_inline) {
      n.helper += (n.helper.empty() ? "" : ",") + p.name;
      for (auto& x : p.nodes) n.body.push_back(std::move(x));
    }
    pending_inline.clear();
    freeze(n);  // printed only as the call: its operations too
  }
  return n;
}

namespace {

// A return anywhere in `body` Python runs (not inside a nested def or a loop).
bool returns(const Block& body) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::Return) return true;
    if (s->kind == StmtKind::If) {
      auto& i = static_cast<const IfStmt&>(*s);
      if (returns(i.body) || returns(i.orelse)) return true;
    }
  }
  return false;
}

}  // namespace

// The branch of a helper's `if` that a host value decides (`if D <= MAX_FREE:`), when a branch
// returns; null when a loop variable or a tile decides it, or neither branch returns (the `if`
// then lifts as a conditional, Lifter::if_stmt).
const Block* Lifter::decided_branch_returning(const IfStmt& s) {
  if (!returns(s.body) && !returns(s.orelse)) return nullptr;
  std::vector<Op> ops;
  auto* saved = current_ops;
  current_ops = &ops;
  AValue t = eval(*s.test);
  current_ops = saved;
  if (!ops.empty()) return nullptr;
  if (t.k != K::Cond && t.k != K::Bool)
    if (auto truth = host_truth(t)) t = AValue::of_bool(*truth);
  if (t.k != K::Bool) return nullptr;
  return t.b ? &s.body : &s.orelse;
}

namespace {

// The names a function's `global` / `nonlocal` statements declare, wherever in its body they are
// written (Python applies them to the whole function; a nested def has its own).
void declared_outer_names(const Block& body, std::set<std::string>& globals, std::set<std::string>& nonlocals) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Global: {
        auto& g = static_cast<const GlobalStmt&>(*s);
        (g.nonlocal ? nonlocals : globals).insert(g.names.begin(), g.names.end());
        break;
      }
      case StmtKind::If: {
        auto& x = static_cast<const IfStmt&>(*s);
        declared_outer_names(x.body, globals, nonlocals), declared_outer_names(x.orelse, globals, nonlocals);
        break;
      }
      case StmtKind::For: {
        auto& x = static_cast<const ForStmt&>(*s);
        declared_outer_names(x.body, globals, nonlocals), declared_outer_names(x.orelse, globals, nonlocals);
        break;
      }
      case StmtKind::While: {
        auto& x = static_cast<const WhileStmt&>(*s);
        declared_outer_names(x.body, globals, nonlocals), declared_outer_names(x.orelse, globals, nonlocals);
        break;
      }
      case StmtKind::With: declared_outer_names(static_cast<const WithStmt&>(*s).body, globals, nonlocals); break;
      default: break;
    }
  }
}

}  // namespace

AValue Lifter::inline_call(const FunctionCode& code, std::vector<AValue> pos,
                           std::vector<std::pair<std::string, AValue>> kw, const CallExpr& c,
                           const std::vector<AValue>& grid, const std::map<std::string, AValue>* captured) {
  if (inline_depth > 8) fail(c.span, "helper calls nested this deep (recursion?)");
  auto saved_env = env;
  auto* saved_ops = current_ops;
  // The helper's names are its own: a carried name of the caller is not one of them.
  auto saved_carried = std::exchange(carried, {});
  size_t scopes_before = closure_scopes.size();
  // A closure (or a lambda) sees the enclosing kernel's names; a module-level helper only its parameters.
  bool closure = closures.count(code.name) || code.lambda_body;
  // A function the kernel itself defined (no captured scope) reached through a module helper's
  // frame: its free names are the kernel's, and a nonlocal it rebinds is the kernel's too.
  std::map<std::string, AValue>* defining_env =
      closure && !captured && module_frames > 0 && kernel_env ? kernel_env : &saved_env;
  std::map<std::string, AValue> local = captured ? *captured : closure ? *defining_env : std::map<std::string, AValue>{};
  // Restored however the call ends (a refusal caught by a retry through the language core).
  struct FrameGuard {
    Lifter& l;
    std::map<std::string, AValue>* kernel_env;
    int module_frames;
    ~FrameGuard() { l.kernel_env = kernel_env, l.module_frames = module_frames; }
  } frame_guard{*this, kernel_env, module_frames};
  if (inline_depth == 0) kernel_env = &saved_env;
  if (!closure) ++module_frames;
  // Python's binding: positional parameters in order, *args the positional arguments left,
  // keyword-only parameters by name or default, **kwargs the keywords no parameter names.
  size_t next_pos = 0;
  std::set<std::string> named;
  for (const Parameter& p : code.params)
    if (!p.positional_only) named.insert(p.name);
  for (size_t i = 0; i < code.params.size(); ++i) {
    const Parameter& p = code.params[i];
    if (p.kind == ParamKind::VarArgs) {
      AValue rest = AValue::of_tuple({});
      while (next_pos < pos.size()) rest.items.push_back(pos[next_pos++]);
      local[p.name] = rest;
      continue;
    }
    if (p.kind == ParamKind::VarKwargs) {
      AValue rest = AValue::of_kind(K::Dict);
      for (auto& [n, v] : kw)
        if (!named.count(n)) rest.keys.push_back(AValue::of_kind(K::Str, n)), rest.items.push_back(v);
      local[p.name] = rest;
      continue;
    }
    if (p.kind == ParamKind::Positional && next_pos < pos.size()) {
      local[p.name] = pos[next_pos++];
      continue;
    }
    bool found = false;
    for (auto& [n, v] : kw)
      if (n == p.name && !p.positional_only) local[p.name] = v, found = true;
    if (found) continue;
    if (!p.default_value) fail(c.span, fmt::format("the call of '{}' without its argument '{}'", code.name, p.name));
    // A lambda's defaults are kept under its place in the text (every lambda is named `<lambda>`).
    std::string defaults_of = code.lambda_body ? fmt::format("<lambda>@{}:{}", code.span.line, code.span.col) : code.name;
    if (auto d = closure_defaults.find(defaults_of); closure && d != closure_defaults.end() && d->second.count(p.name)) {
      local[p.name] = d->second.at(p.name);
      continue;
    }
    env = {};
    std::vector<Op> ignored;
    current_ops = &ignored;
    local[p.name] = eval(*p.default_value);
  }
  env = local;
  // A call from the kernel function's own top level, on a grid (a wrapper's `f[grid](...)`) or not
  // (`def kernel(x): return leaky_cap(x, slope=0.2)`, a wrapper passing extra arguments): its body
  // is also kept as a kernel of its own (launches, adopt_launch).
  bool top_launch = inline_depth == 0 && loop_stack.empty();
  ++inline_depth;
  auto saved_programs = std::make_pair(program_loops, program_sizes);
  if (!grid.empty()) {
    program_loops.clear();
    program_sizes.clear();
    for (size_t d = 0; d < grid.size(); ++d) {
      Loop loop;
      loop.id = static_cast<int>(k.loops.size());
      loop.var = fmt::format("program_id_{}", d);
      loop.kind = LoopKind::Affine;
      loop.program = true;
      loop.start = IExpr(0);
      loop.stop = int_of(grid[d], c);
      k.loops[loop.id] = loop;
      program_loops.push_back(loop.id);
      program_sizes.push_back(loop.stop);
      loop_stack.push_back(loop.id);
    }
  }
  std::vector<Node> nodes;
  AValue result = AValue::of_kind(K::None);
  if (code.lambda_body) {  // a lambda: its expression, its operations one node of the inlined body
    std::vector<Op> ops;
    current_ops = &ops;
    result = eval(*code.lambda_body);
    if (!ops.empty()) {
      Node n;
      n.kind = NodeKind::Stmt;
      n.id = k.next_node++;
      n.ops = std::move(ops);
      nodes.push_back(std::move(n));
    }
  }
  std::optional<Node> launch_return;  // the launched function's `return out` as its own kernel's
  // The helper's statements in the order Python runs them: `if D <= MAX_FREE: return one_pass(t)`
  // decided by a host value (a shape, a module constant) runs the branch taken in place, so its
  // return is the helper's; true when a return was reached.
  std::function<bool(const Block&)> run = [&](const Block& body) -> bool {
    for (const auto& s : body) {
      if (s->kind == StmtKind::If) {
        if (const Block* taken = decided_branch_returning(static_cast<const IfStmt&>(*s))) {
          if (run(*taken)) return true;
          continue;
        }
      }
      bool jumps = (s->kind == StmtKind::For && has_jump(static_cast<const ForStmt&>(*s).body)) ||
                   (s->kind == StmtKind::While && has_jump(static_cast<const WhileStmt&>(*s).body));
      if (jumps && s->kind == StmtKind::For) {
        if (auto returned = jump_loop(static_cast<const ForStmt&>(*s), nodes)) {
          result = *returned;
          return true;
        }
        continue;
      }
      if (s->kind == StmtKind::Try || jumps) {  // a helper's `try: return TABLE[key] except KeyError: ...`
        if (auto returned = host_statement(*s, nodes)) {
          result = *returned;
          return true;
        }
        continue;
      }
      if (s->kind != StmtKind::Return) {
        statement(*s, nodes);
        continue;
      }
      auto& r = static_cast<const ReturnStmt&>(*s);
      if (r.value) {
        std::vector<Op> ops;
        current_ops = &ops;
        result = eval(*r.value);
        if (!ops.empty()) {
          nodes.push_back(ops_node(*s, std::move(ops)));
          top_launch = false;  // a computed value returned: not a kernel of its own
        }
      }
      if (top_launch) {
        launch_return = new_node(NodeKind::Meta, *s);
        launch_return->meta = MetaKind::Return;
      }
      return true;
    }
    return false;
  };
  run(code.body);
  if (top_launch) {
    Launch l{&code, nodes, program_loops, {}};
    for (const Parameter& p : code.params)
      if (local.count(p.name)) l.params.push_back({p.name, local.at(p.name)});
    if (launch_return) l.body.push_back(*launch_return);
    launches.push_back(std::move(l));
  }
  // The launch grid's loops around the body, the first program id outermost.
  for (size_t d = grid.size(); d-- > 0;) {
    if (code.body.empty()) break;
    Node n = new_node(NodeKind::Loop, *code.body.front());
    n.loop = program_loops[d];
    n.body = std::move(nodes);
    nodes.clear();
    nodes.push_back(std::move(n));
    loop_stack.pop_back();
  }
  std::tie(program_loops, program_sizes) = saved_programs;
  --inline_depth;
  // `global SCALE` / `nonlocal shift` (nki-language.md 3.1: ordinary Python runs while tracing): what
  // the helper bound to such a name is the module's or the enclosing function's from here on. A
  // helper called inside a loop of the kernel rebinding one would carry a host value across the
  // loop's iterations, which one lifted copy of the body cannot: refused.
  // A function this call defined sees the helper's names as they are when it returns (Python's
  // late binding of free variables): a factory's locals bound after its `def` included.
  while (closure_scopes.size() > scopes_before) {
    auto scope = closure_scopes.back();
    closure_scopes.pop_back();
    for (const auto& [name, v] : env)
      if (v.attrs != scope) (*scope)[name] = v;
  }
  std::set<std::string> outer_globals, outer_nonlocals;
  declared_outer_names(code.body, outer_globals, outer_nonlocals);
  for (const auto* names : {&outer_globals, &outer_nonlocals}) {
    for (const std::string& name : *names) {
      auto now = env.find(name);
      if (now == env.end()) continue;
      bool global = names == &outer_globals;
      const AValue* before = nullptr;
      if (!global) {
        if (auto b = saved_env.find(name); b != saved_env.end()) before = &b->second;
      } else if (auto b = globals.find(name); b != globals.end()) {
        before = &b->second;
      }
      if (before && py_literal(*before) && py_literal(now->second) && *py_literal(*before) == *py_literal(now->second))
        continue;  // unchanged
      if (!loop_stack.empty())
        fail(c.span, fmt::format("the call of '{}' rebinding the {} name '{}' inside a loop (a host value carried "
                                 "across the loop's iterations)", code.name, global ? "global" : "nonlocal", name));
      if (global) globals[name] = now->second;
      else (*defining_env)[name] = now->second;
    }
  }

  env = saved_env;
  carried = std::move(saved_carried);
  current_ops = saved_ops;
  bool tile_work = false;
  for_each_node(nodes, [&](const Node& n, const std::vector<int>&) { tile_work = tile_work || !n.ops.empty(); });
  if (tile_work) pending_inline.push_back({code.name, std::move(nodes), saved_ops ? saved_ops->size() : 0});
  return result;
}

void Lifter::import(const ImportStmt& s) {
  for (const auto& a : s.names) {
    std::string path = s.kind == StmtKind::ImportFrom ? s.module + "." + a.name : a.name;
    std::string canon = canonical_module(path);
    std::string bound = a.asname.empty() ? a.name : a.asname;
    if (s.kind == StmtKind::Import && a.asname.empty() && a.name.find('.') != std::string::npos) {
      bound = a.name.substr(0, a.name.find('.'));  // `import neuronxcc.nki` binds `neuronxcc`
      canon = canonical_module(bound);
    }
    if (canon == "nki" && path.rfind("neuronxcc", 0) != 0 && s.kind == StmtKind::Import) k.dialect.new_api = true;
    if (canon == "nki.language" && path.rfind("neuronxcc", 0) != 0) k.dialect.new_api = true;
    if (!canon.empty()) {
      env[bound] = AValue::of_kind(K::Module, canon);
      if (k.dialect.alias.find(canon) == k.dialect.alias.end()) k.dialect.alias[canon] = bound;
      continue;
    }
    // `from neuronxcc.nki.language import par_dim`, `from neuronxcc.nki import trace`.
    std::string mod = canonical_module(s.module);
    if (s.kind == StmtKind::ImportFrom && !mod.empty()) {
      env[bound] = module_attr(mod, a.name);
      continue;
    }
    env[bound] = AValue::of_kind(K::Unknown);
  }
}

namespace {

// Whether every path through `body` ends in a return (or a raise): what follows it never runs.
bool always_returns(const Block& body) {
  if (body.empty()) return false;
  const Stmt& last = *body.back();
  if (last.kind == StmtKind::Return || last.kind == StmtKind::Raise) return true;
  if (last.kind != StmtKind::If) return false;
  auto& i = static_cast<const IfStmt&>(last);
  return always_returns(i.body) && always_returns(i.orelse);
}

}  // namespace

void Lifter::block(const Block& b, std::vector<Node>& out) {
  bool outer = reads_branch_bound;
  for (size_t j = 0; j < b.size(); ++j) {
    const auto& s = b[j];
    // `if N <= 512: ...; return out` decided by a host value (a shape): Python runs none of the
    // statements after it, so they are not lifted (a tiling written for larger shapes may not even
    // fit these); they stay in the form as written, verbatim.
    if (s->kind == StmtKind::If) {
      const Block* taken = decided_branch_returning(static_cast<const IfStmt&>(*s));
      if (taken && always_returns(*taken) && j + 1 < b.size()) {
        reads_branch_bound = false;
        size_t first = out.size();
        statement(*s, out);
        if (reads_branch_bound)
          for (size_t i = first; i < out.size(); ++i) freeze(out[i]);
        for (size_t r = j + 1; r < b.size(); ++r) push_meta(*b[r], MetaKind::Assert, out);
        break;
      }
    }
    reads_branch_bound = false;
    size_t first = out.size();
    statement(*s, out);
    if (!reads_branch_bound) continue;
    for (size_t i = first; i < out.size(); ++i) freeze(out[i]);
  }
  reads_branch_bound = outer;
}

void Lifter::statement(const Stmt& s, std::vector<Node>& out) {
  switch (s.kind) {
    case StmtKind::Expr: {
      auto& e = static_cast<const ExprStmt&>(s);
      if (e.value->kind == ExprKind::Constant) {
        push_meta(s, MetaKind::Docstring, out);
        return;
      }
      if (e.value->kind == ExprKind::Call) {
        auto& c = static_cast<const CallExpr&>(*e.value);
        if (c.func->kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(*c.func).attr == "append") {
          std::vector<Op> made = append(c);
          // `tiles.append(helper(...))`: the helper's work is this statement's (an inline node
          // here), not the next statement's, which may be in another loop.
          if (made.empty() && pending_inline.empty()) push_meta(s, MetaKind::Binding, out);
          else out.push_back(ops_node(s, std::move(made)));
          return;
        }
      }
      std::vector<Op> ops;
      current_ops = &ops;
      eval(*e.value);
      if (ops.empty() && pending_inline.empty()) {
        // A call that lifts to no tile operation is host-side Python (a helper checking shapes):
        // it prints back verbatim, like an assertion.
        push_meta(s, MetaKind::Assert, out);
        return;
      }
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    case StmtKind::Assign: assign(static_cast<const AssignStmt&>(s), out); return;
    case StmtKind::AugAssign: aug_assign(static_cast<const AugAssignStmt&>(s), out); return;
    case StmtKind::For:
      if (has_jump(static_cast<const ForStmt&>(s).body)) {  // a search over host values with break
        if (jump_loop(static_cast<const ForStmt&>(s), out))
          fail(s.span, "a return inside a loop of the kernel");
        return;
      }
      for_loop(static_cast<const ForStmt&>(s), out);
      return;
    case StmtKind::If: if_stmt(static_cast<const IfStmt&>(s), out); return;
    case StmtKind::Return: {
      auto& r = static_cast<const ReturnStmt&>(s);
      Node n = new_node(NodeKind::Meta, s);
      n.meta = MetaKind::Return;
      if (r.value) {
        std::vector<Op> ops;
        current_ops = &ops;
        AValue v = eval(*r.value);
        if (!ops.empty()) fail(s.span, "a return of a computed value (store it to an HBM output)");
        std::vector<AValue> items = v.k == K::Tuple || v.k == K::List ? v.items : std::vector<AValue>{v};
        for (auto& x : items)
          if (x.k == K::Tile) k.outputs.push_back(x.access.tensor);
        // `return kernel_(a, b)` in a wrapper: the statement is the helper's work (an inline node).
        if (!pending_inline.empty()) {
          out.push_back(ops_node(s, {}));
          return;
        }
      }
      out.push_back(std::move(n));
      return;
    }
    case StmtKind::Assert: {
      Node n = new_node(NodeKind::Meta, s);
      n.meta = MetaKind::Assert;
      auto& a = static_cast<const AssertStmt&>(s);
      std::vector<Op> ops;
      current_ops = &ops;
      AValue v = eval(*a.test);
      if (v.k == K::Bool && !v.b) fail(a.test->span, "a kernel whose assertion fails for these arguments");
      out.push_back(std::move(n));
      return;
    }
    case StmtKind::Import: case StmtKind::ImportFrom: {
      import(static_cast<const ImportStmt&>(s));
      push_meta(s, MetaKind::Import, out);
      return;
    }
    case StmtKind::Pass: {
      push_meta(s, MetaKind::Pass, out);
      return;
    }
    case StmtKind::With: with_block(static_cast<const WithStmt&>(s), out); return;
    case StmtKind::AnnAssign: {  // `x: int` declares nothing
      push_meta(s, MetaKind::Pass, out);
      return;
    }
    case StmtKind::FunctionDef: {
      // A closure: a function defined inside the kernel. Its calls inline like a helper's, seeing
      // the kernel's names as they are at the call (Python's late binding of free variables).
      auto& def = static_cast<const FunctionDefStmt&>(s);
      // A helper (a kernel factory) defining an @nki.jit kernel it returns: the decorator marks the
      // def a kernel, which changes nothing of how its body runs when called.
      for (const auto& d : def.decorators) {
        const Expr& callee = d->kind == ExprKind::Call ? *static_cast<const CallExpr&>(*d).func : *d;
        AValue dv = inline_depth > 0 ? eval(callee) : AValue{};
        if (dv.k != K::Func || dv.s != "nki.jit")
          fail(d->span, inline_depth > 0 ? fmt::format("the decorator '{}' of a function defined inside a helper", print_expr(*d))
                                         : std::string("a decorated function defined inside the kernel"));
      }
      helpers[def.code->name] = def.code.get();
      closures.insert(def.code->name);
      record_closure_defaults(def.code->name, *def.code);
      env[def.code->name] = AValue::of_kind(K::Func, "user." + def.code->name);
      // Defined inside a helper (a factory returning it): it keeps the helper's names.
      if (inline_depth > 0) {
        env[def.code->name].attrs = std::make_shared<std::map<std::string, AValue>>(env);
        closure_scopes.push_back(env[def.code->name].attrs);
      }
      Node n = new_node(NodeKind::Meta, s);
      n.meta = MetaKind::Binding;
      n.binds = {def.code->name};
      out.push_back(std::move(n));
      return;
    }
    case StmtKind::While:
      // `while True: ... if n * 128 >= M: break` of host code: run as Python runs it.
      if (has_jump(static_cast<const WhileStmt&>(s).body)) {
        if (host_statement(s, out)) fail(s.span, "a return inside a loop of the kernel");
        return;
      }
      host_while(static_cast<const WhileStmt&>(s), out);
      return;
    case StmtKind::Break: case StmtKind::Continue:
      fail(s.span, fmt::format("a {} of a loop doing tile work where it is not the last statement of an if at the top "
                               "of the loop's body (`if c: ...; continue` lifts)",
                               s.kind == StmtKind::Break ? "break" : "continue"));
    case StmtKind::Raise: fail(s.span, "a raise the kernel reaches for these arguments");
    case StmtKind::Try:
      if (host_statement(s, out)) fail(s.span, "a return inside a try statement of the kernel");
      return;
    case StmtKind::ClassDef: fail(s.span, "a class defined inside the kernel");
    case StmtKind::Global:
      // Resolved when the function is called (Lifter::inline_call writes the names back); the
      // declaration itself is kept as written.
      push_meta(s, MetaKind::Binding, out);
      return;
    case StmtKind::Delete: fail(s.span, "a del statement");
  }
  fail(s.span, "this statement");
}

void Lifter::note_binding_depth(const std::string& id, const AValue& v) {
  if (v.k == K::List && v.items.empty()) list_depth[id] = loop_stack.size();
  else list_depth.erase(id);
  if (v.k == K::Int || v.k == K::Float) number_loop[id] = loop_stack.empty() ? -1 : loop_stack.back();
  else number_loop.erase(id);
}

void Lifter::bind_target(const Expr& target, const AValue& v) {
  if (target.kind == ExprKind::Name) {
    const std::string& id = static_cast<const NameExpr&>(target).id;
    env[id] = v;
    // `s_parts, q_parts = [], []`: empty lists made here, appended per iteration at this depth
    // as `s_parts = []` is (Lifter::append).
    note_binding_depth(id, v);
    return;
  }
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    auto& t = static_cast<const SequenceExpr&>(target);
    // One starred name takes what the others leave, as a list (`*_, n = x.shape`).
    size_t star = t.elts.size();
    for (size_t i = 0; i < t.elts.size(); ++i)
      if (t.elts[i]->kind == ExprKind::Starred) {
        if (star != t.elts.size()) fail(target.span, fmt::format("the unpacking '{}' (two starred names)", print_expr(target)));
        star = i;
      }
    size_t fixed = t.elts.size() - (star < t.elts.size() ? 1 : 0);
    if ((v.k != K::Tuple && v.k != K::List) || (star == t.elts.size() ? v.items.size() != fixed : v.items.size() < fixed))
      fail(target.span, fmt::format("the unpacking '{}'", print_expr(target)));
    size_t rest = v.items.size() - fixed;
    for (size_t i = 0, j = 0; i < t.elts.size(); ++i) {
      if (i == star) {
        AValue list = AValue::of_tuple({v.items.begin() + static_cast<long>(j), v.items.begin() + static_cast<long>(j + rest)});
        list.k = K::List;
        bind_target(*static_cast<const StarredExpr&>(*t.elts[i]).value, list);
        j += rest;
      } else {
        bind_target(*t.elts[i], v.items[j++]);
      }
    }
    return;
  }
  if (target.kind == ExprKind::Attribute) {  // `self.width = width`
    auto& a = static_cast<const AttributeExpr&>(target);
    AValue obj = eval(*a.value);
    if (obj.k == K::Instance) {
      set_instance_attr(obj, a.attr, v, target);
      return;
    }
  }
  fail(target.span, fmt::format("the assignment target '{}'", print_expr(target)));
}

namespace {

}  // namespace

bool Lifter::whole_access(const Access& a) const { return accesses_whole(k, a); }

bool Lifter::write_value(std::vector<Op>& ops, const AValue& v, const Access& dst, const Expr& target,
                         const Expr* value) {
  Op* root = producer(ops, v, k);
  if (root && root->result >= 0) {
    // `t[i] = op(...)`: the instruction writes the region directly.
    k.tensor(root->result).role = TensorRole::Value;
    k.tensor(root->result).name = "";
    root->result = -1;
    root->dst = dst;
    root->dst_origin = &target;
    return true;
  }
  Op copy;
  copy.api = "assign";
  copy.cls = OpClass::Copy;
  copy.engine = Engine::Vector;
  copy.dst = dst;
  copy.dst_origin = &target;
  copy.args.push_back({"src", to_operand(*this, v, value)});
  ops.push_back(std::move(copy));
  return false;
}

Op* producer(std::vector<Op>& ops, const AValue& v, const Kernel& k) {
  if (ops.empty() || v.k != K::Tile) return nullptr;
  Op& root = ops.back();
  int t = root.result >= 0 ? root.result : (root.dst ? root.dst->tensor : -1);
  if (t != v.access.tensor) return nullptr;
  // A whole access: every dim indexed from 0 by one axis over its full size.
  const Tensor& tensor = k.tensor(t);
  for (size_t d = 0; d < v.access.dims.size(); ++d) {
    const DimIndex& di = v.access.dims[d];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d) ||
        di.terms[0].stride != 1 || di.terms[0].size != tensor.shape[d])
      return nullptr;
  }
  return &root;
}

// `pid_m = nl.program_id(0)` in a launched function: its program loop, printed when the launch
// opens (`for pid_m in nl.affine_range(2)`), may take the author's name for the program's id
// instead of `program_id_0` (the first name bound to it; name_program_loops decides at the end).
void Lifter::name_program_loop(const std::string& id, const AValue& v) {
  if (v.k != K::Int || v.i.is_constant() || env.count(id)) return;
  std::vector<int> vars = v.i.vars();
  if (vars.size() != 1 || !(v.i == IExpr::var(vars[0])) || !k.loops.at(vars[0]).program) return;
  program_names.emplace(vars[0], id);
}

// The names name_program_loop found, where no other loop and no tensor of the kernel has it (a body
// rebinding `row` to a tile, or looping `for i` where `i = nl.program_id(1)`, keeps `program_id_N`).
void Lifter::name_program_loops() {
  for (const auto& [loop_id, name] : program_names) {
    bool taken = std::any_of(k.loops.begin(), k.loops.end(), [&](const auto& l) { return l.second.var == name; }) ||
                 std::any_of(k.tensors.begin(), k.tensors.end(), [&](const Tensor& t) {
                   return t.name == name || t.list_name == name;
                 });
    if (!taken) k.loops.at(loop_id).var = name;
  }
}

// `accs[g] = nl.add(accs[g], t)`: Python's item assignment into a list of the kernel (per-group
// accumulators), a host value rebound as a name is. Only where the trace runs it once per copy:
// in a loop of the form the item would hold one iteration's value in the next, a value carried
// through a host list, so such a loop lifts as its copies (for_loop) or not at all.
void Lifter::list_item_assign(const AssignStmt& s, const SubscriptExpr& sub, const AValue& v, std::vector<Op>& ops,
                              std::vector<Node>& out) {
  const std::string& id = static_cast<const NameExpr&>(*sub.value).id;
  AValue index = eval(*sub.index);
  if (!loop_stack.empty()) {
    per_iteration_host_refused = true;
    fail(s.targets[0]->span, fmt::format("the assignment to '{}', an item of a Python list, in a loop of the kernel "
                                         "(the item would carry one iteration's value to the next)",
                                         print_expr(*s.targets[0])));
  }
  AValue& list = env[id];
  if (index.k != K::Int || !index.i.is_constant())
    fail(sub.index->span, fmt::format("'{}': a list index that is not a constant integer", print_expr(*sub.index)));
  int64_t n = static_cast<int64_t>(list.items.size()), i = index.i.constant();
  if (i < 0) i += n;
  if (i < 0 || i >= n) fail(sub.index->span, fmt::format("'{}': index out of range", print_expr(*s.targets[0])));
  if (v.k == K::Tile) check_not_alias_of_carried(*s.targets[0], v);
  list.items[static_cast<size_t>(i)] = v;
  if (ops.empty()) {
    push_meta(s, MetaKind::Binding, out);
    return;
  }
  if (Op* root = producer(ops, v, k); root && root->result >= 0) {
    Tensor& t = k.tensor(root->result);
    if (t.name.empty()) t.name = fmt::format("{}[{}]", id, i);
    ++name_writes;
  }
  out.push_back(ops_node(s, std::move(ops)));
}

void Lifter::assign(const AssignStmt& s, std::vector<Node>& out) {
  if (s.targets.size() != 1) fail(s.span, "a chained assignment");
  const Expr& target = *s.targets[0];
  std::vector<Op> ops;
  current_ops = &ops;
  const nki::Expr* outer_unpacked = unpacked_comprehension;
  unpacked_comprehension = nullptr;
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
    const Expr* made = s.value.get();
    if (made->kind == ExprKind::Call) {  // `tuple(<generator>)`, `list(<comprehension>)`
      auto& call = static_cast<const CallExpr&>(*made);
      bool wraps = call.func->kind == ExprKind::Name && call.args.size() == 1 && call.keywords.empty() &&
                   (static_cast<const NameExpr&>(*call.func).id == "tuple" || static_cast<const NameExpr&>(*call.func).id == "list");
      made = wraps ? call.args[0].get() : nullptr;
    }
    if (made && (made->kind == ExprKind::ListComp || made->kind == ExprKind::GeneratorExp)) unpacked_comprehension = made;
  }
  AValue v;
  try {
    v = eval(*s.value);
  } catch (...) {
    unpacked_comprehension = outer_unpacked;
    throw;
  }
  unpacked_comprehension = outer_unpacked;
  if (target.kind == ExprKind::Subscript) {
    auto& sub = static_cast<const SubscriptExpr&>(target);
    if (bind_filled(s, sub, v, ops, out)) return;
    AValue base = eval(*sub.value);
    if (base.k == K::Dict && sub.value->kind == ExprKind::Name && env.count(static_cast<const NameExpr&>(*sub.value).id)) {
      // `tiles["a"] = nl.load(a)`: Python's item assignment into a dict of the kernel, a host
      // value holding tiles as a list does; the statement's operations are its own. In a loop of
      // the form the item would hold one iteration's value after it, which no name of the form is.
      AValue key = eval(*sub.index);
      if (!hashable_key(key))
        fail(sub.index->span, fmt::format("'{}': a dict key that is not a string, a bool or a constant integer",
                                          print_expr(*sub.index)));
      if (!loop_stack.empty())
        fail(target.span, fmt::format("the assignment to '{}', an item of a dict, in a loop of the kernel (after the "
                                      "loop it would hold one iteration's value)", print_expr(target)));
      dict_put(env[static_cast<const NameExpr&>(*sub.value).id], key, v);
      if (ops.empty()) {
        push_meta(s, MetaKind::Binding, out);
        return;
      }
      // The tile the statement makes is known by the item's text (`tiles['a']`), as a name's is by
      // the name: a regenerated statement writes it there and its readers read it there.
      if (Op* root = producer(ops, v, k); root && root->result >= 0) {
        Tensor& t = k.tensor(root->result);
        if (t.name.empty()) t.name = print_expr(target);
        ++name_writes;
      }
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    if (base.k == K::List && sub.value->kind == ExprKind::Name && env.count(static_cast<const NameExpr&>(*sub.value).id)) {
      list_item_assign(s, sub, v, ops, out);
      return;
    }
    if (base.k != K::Tile) fail(target.span, fmt::format("the assignment to '{}'", print_expr(target)));
    Access dst = subscript(base.access, *sub.index, target);
    if (write_value(ops, v, dst, target, s.value.get())) ++block_writes;
    out.push_back(ops_node(s, std::move(ops)));
    return;
  }
  if (target.kind == ExprKind::Name) {
    const std::string& id = static_cast<const NameExpr&>(target).id;
    filled.erase(id);  // a new list under the name
    if (carried.count(id)) {
      rebind_carried(s, id, v, producer(ops, v, k), ops);
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    check_not_alias_of_carried(target, v);
    if (!pending_inline.empty()) {
      env[id] = v;
      // The helper's result is known by this name from here on (its own name is local to it).
      if (v.k == K::Tile && whole_access(v.access)) k.tensor(v.access.tensor).name = id;
      // A list of fresh tiles made by a comprehension (Tensor::host_list) is printed by its name.
      if ((v.k == K::List || v.k == K::Tuple) && !v.items.empty() && v.items[0].k == K::Tile) {
        Tensor& t = k.tensor(v.items[0].access.tensor);
        if (t.host_list && t.list_name.empty()) {
          t.list_name = t.name = id;
        } else if (!t.host_list) {
          // A list of the results of a comprehension's calls (`tiles = [nl.load(x[s]) for s in
          // range(3)]`): each item is known by its subscript, so an operation reading one prints
          // (`nl.maximum(tiles[0], tiles[1])` of a functools.reduce printed from the form).
          for (size_t i = 0; i < v.items.size(); ++i) {
            const AValue& item = v.items[i];
            if (item.k != K::Tile || !whole_access(item.access)) continue;
            Tensor& it = k.tensor(item.access.tensor);
            if (it.name.empty() && !it.host_list && it.list_loop < 0) it.name = fmt::format("{}[{}]", id, i);
          }
        }
      }
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    if (!ops.empty()) {
      Op* root = producer(ops, v, k);
      if (!root && display_of_results(s, id, v, ops, out)) return;
      if (!root) fail(s.span, fmt::format("the assignment '{} = {}' (a value taken from an operation's result)", id,
                                          print_expr(*s.value)));
      Tensor& t = k.tensor(root->result >= 0 ? root->result : root->dst->tensor);
      if (t.name.empty()) t.name = id;
      if (root->result >= 0) ++name_writes;
      env[id] = v;
      out.push_back(ops_node(s, std::move(ops)));
      return;
    }
    Node n = new_node(NodeKind::Meta, s);
    n.binds = {id};
    note_binding_depth(id, v);
    if (v.k == K::Tile) {
      n.meta = MetaKind::View;
      n.view = v.access;
      // `x_fold = x.reshape(...)`: the view is known by this name.
      if (whole_access(v.access) && k.tensor(v.access.tensor).name.empty()) k.tensor(v.access.tensor).name = id;
    } else {
      n.meta = MetaKind::Binding;
      name_program_loop(id, v);
    }
    env[id] = v;
    out.push_back(std::move(n));
    return;
  }
  // Operations of the statement itself are allowed only around a helper's work (`a, b =
  // rotate(x, nl.load(c))`: the loads are the helper's arguments, opened with it).
  if (!ops.empty() && pending_inline.empty()) fail(s.span, "an unpacking of an operation's results");
  // `m_i, l_i = online_update(m_i, l_i, blk)`: tiles carried through the loop, rebound by unpacking
  // (a helper's tuple), which the form's buffers cannot hold (one operation writes a carried
  // tile): the loop may still lift as its copies (for_loop), the names rebound per copy as Python does.
  if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List)
    for (const auto& e : static_cast<const SequenceExpr&>(target).elts)
      if (e->kind == ExprKind::Name && carried.count(static_cast<const NameExpr&>(*e).id)) per_iteration_host_refused = true;
  check_not_alias_of_carried(target, v);
  bind_target(target, v);
  if (!pending_inline.empty()) {
    // `mean, var = stats(t)`: a helper returning several tiles. The statement is the helper's work
    // (an inline node); its results are known by the names they are unpacked into.
    if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
      auto& names = static_cast<const SequenceExpr&>(target);
      for (size_t i = 0; i < names.elts.size() && i < v.items.size(); ++i)
        if (names.elts[i]->kind == ExprKind::Name && v.items[i].k == K::Tile && whole_access(v.items[i].access))
          k.tensor(v.items[i].access.tensor).name = static_cast<const NameExpr&>(*names.elts[i]).id;
    }
    out.push_back(ops_node(s, std::move(ops)));
    return;
  }
  // `xr, xc = x_map(i, k)`: the names it binds, as a single name's binding has them, so a move
  // taking a statement that reads them out of this loop knows they are not bound where it goes.
  Node n = new_node(NodeKind::Meta, s);
  n.meta = MetaKind::Binding;
  std::function<void(const Expr&)> names = [&](const Expr& e) {
    if (e.kind == ExprKind::Name) n.binds.push_back(static_cast<const NameExpr&>(e).id);
    else if (e.kind == ExprKind::Starred) names(*static_cast<const StarredExpr&>(e).value);
    else if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List)
      for (const auto& x : static_cast<const SequenceExpr&>(e).elts) names(*x);
  };
  names(target);
  out.push_back(std::move(n));
}

bool Lifter::display_of_results(const AssignStmt& s, const std::string& id, const AValue& v, std::vector<Op>& ops,
                                std::vector<Node>& out) {
  if ((v.k != K::Dict && v.k != K::Tuple && v.k != K::List) || v.items.empty()) return false;
  if (s.value->kind != ExprKind::Dict && s.value->kind != ExprKind::Tuple && s.value->kind != ExprKind::List)
    return false;
  std::vector<std::pair<int, std::string>> names;  // result tensor -> the item's text
  for (size_t i = 0; i < v.items.size(); ++i) {
    if (v.items[i].k != K::Tile) continue;
    const int t = v.items[i].access.tensor;
    bool made = std::any_of(ops.begin(), ops.end(), [&](const Op& op) { return op.result == t; });
    if (!made || !accesses_whole(k, v.items[i].access)) return false;
    std::optional<std::string> key =
        v.k == K::Dict ? py_literal(v.keys[i]) : std::optional<std::string>(std::to_string(i));
    if (!key) return false;
    names.push_back({t, fmt::format("{}[{}]", id, *key)});
  }
  if (names.empty()) return false;
  for (const auto& [t, name] : names)
    if (k.tensor(t).name.empty()) k.tensor(t).name = name;
  env[id] = v;
  Node n = ops_node(s, std::move(ops));
  freeze(n);
  out.push_back(std::move(n));
  return true;
}

namespace {

// `cur op= v` of two Python numbers as Python computes it: integers stay integers (a product by a
// constant, floor division and remainder of constants; sums of loop expressions), a float on
// either side or a true division gives a float. nullopt for what the lift cannot compute.
std::optional<AValue> host_number_update(const AValue& cur, BinOp op, const AValue& v) {
  using K = AValue::K;
  auto num = [](const AValue& x) -> std::optional<double> {
    if (x.k == K::Float) return x.f;
    if (x.k == K::Int && x.i.is_constant()) return static_cast<double>(x.i.constant());
    return std::nullopt;
  };
  if (cur.k == K::Int && v.k == K::Int) {
    if (op == BinOp::Add) return AValue::of_int(cur.i + v.i);
    if (op == BinOp::Sub) return AValue::of_int(cur.i - v.i);
    if (op == BinOp::Mul && v.i.is_constant()) return AValue::of_int(cur.i * v.i.constant());
    if (op == BinOp::Mul && cur.i.is_constant()) return AValue::of_int(v.i * cur.i.constant());
    if ((op == BinOp::FloorDiv || op == BinOp::Mod) && cur.i.is_constant() && v.i.is_constant() && v.i.constant() != 0) {
      int64_t a = cur.i.constant(), b = v.i.constant();
      int64_t q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);  // Python floors
      return AValue::of_int(IExpr(op == BinOp::FloorDiv ? q : a - q * b));
    }
  }
  auto x = num(cur), y = num(v);
  if (!x || !y || !(cur.k == K::Float || v.k == K::Float || op == BinOp::Div)) return std::nullopt;
  if (op == BinOp::Add) return AValue::of_float(*x + *y);
  if (op == BinOp::Sub) return AValue::of_float(*x - *y);
  if (op == BinOp::Mul) return AValue::of_float(*x * *y);
  if (op == BinOp::Div && *y != 0) return AValue::of_float(*x / *y);
  return std::nullopt;
}

}  // namespace

void Lifter::aug_assign(const AugAssignStmt& s, std::vector<Node>& out) {
  std::vector<Op> ops;
  current_ops = &ops;
  AValue v = eval(*s.value);
  AValue t;
  if (s.target->kind == ExprKind::Name) {
    t = eval(*s.target);
    if (t.k == K::Set) {  // `done |= {r}`: a host value, rebound
      auto r = set_binary(t, s.op, v, *s.target);
      if (!r) fail(s.span, "this augmented assignment of a set");
      env[static_cast<const NameExpr&>(*s.target).id] = *r;
      push_meta(s, MetaKind::Binding, out);
      return;
    }
    if (t.k == K::Int || t.k == K::Float) {
      auto bound = number_loop.find(static_cast<const NameExpr&>(*s.target).id);
      if (!loop_stack.empty() && (bound == number_loop.end() || bound->second != loop_stack.back())) {
        per_iteration_host_refused = true;  // the loop may still lift as its copies (for_loop)
        fail(s.span, "a Python value updated in a loop (its value differs per iteration)");
      }
      // `rows *= s` over a shape's dims, `scale /= 2.0`: what Python computes.
      auto r = host_number_update(t, s.op, v);
      if (!r) fail(s.span, "this augmented assignment of a Python value");
      env[static_cast<const NameExpr&>(*s.target).id] = *r;
      push_meta(s, MetaKind::Binding, out);
      return;
    }
    if (t.k != K::Tile) fail(s.target->span, fmt::format("the accumulation into '{}'", print_expr(*s.target)));
  } else if (s.target->kind == ExprKind::Subscript) {
    auto& sub = static_cast<const SubscriptExpr&>(*s.target);
    AValue base = eval(*sub.value);
    if (base.k != K::Tile) fail(s.target->span, fmt::format("the accumulation into '{}'", print_expr(*s.target)));
    t = AValue::of_tile(subscript(base.access, *sub.index, *s.target));
  } else if (s.target->kind == ExprKind::Attribute &&
             eval(*static_cast<const AttributeExpr&>(*s.target).value).k == K::Instance) {
    // `self.k += 1` of a helper object: its attribute updated as Python does. In a loop of the form
    // the value then differs per iteration, which check_carried_attrs sees after the body.
    auto& a = static_cast<const AttributeExpr&>(*s.target);
    AValue obj = eval(*a.value);
    if (!ops.empty()) fail(s.span, fmt::format("'{}' updated by a tile operation", print_expr(*s.target)));
    AValue cur = eval(*s.target);
    auto num = [](const AValue& x) -> std::optional<double> {
      if (x.k == K::Float) return x.f;
      if (x.k == K::Int && x.i.is_constant()) return static_cast<double>(x.i.constant());
      return std::nullopt;
    };
    AValue r;
    if (cur.k == K::Int && v.k == K::Int && (s.op == BinOp::Add || s.op == BinOp::Sub)) {
      r = AValue::of_int(s.op == BinOp::Add ? cur.i + v.i : cur.i - v.i);
    } else if (cur.k == K::Int && v.k == K::Int && s.op == BinOp::Mul && v.i.is_constant()) {
      r = AValue::of_int(cur.i * v.i.constant());
    } else if (auto x = num(cur), y = num(v); x && y && (cur.k == K::Float || v.k == K::Float || s.op == BinOp::Div) &&
                                              (s.op == BinOp::Add || s.op == BinOp::Sub || s.op == BinOp::Mul ||
                                               (s.op == BinOp::Div && *y != 0))) {
      double z = s.op == BinOp::Add ? *x + *y : s.op == BinOp::Sub ? *x - *y : s.op == BinOp::Mul ? *x * *y : *x / *y;
      r = AValue::of_float(z);
    } else {
      fail(s.span, fmt::format("the augmented assignment '{} {}= ...' of an attribute", print_expr(*s.target), symbol(s.op)));
    }
    set_instance_attr(obj, a.attr, r, *s.target);
    push_meta(s, MetaKind::Binding, out);
    return;
  } else {
    fail(s.target->span, "this accumulation target");
  }
  if (s.op != BinOp::Add) fail(s.span, fmt::format("a '{}=' accumulation into a tile (only += is lifted)", symbol(s.op)));
  Op* root = producer(ops, v, k);
  if (root && root->result >= 0) {
    k.tensor(root->result).name = "";
    root->result = -1;
    root->dst = t.access;
    root->dst_origin = s.target.get();
    root->accumulate = true;
  } else {
    Op acc;
    acc.api = "assign";
    acc.cls = OpClass::Copy;
    acc.engine = Engine::Vector;
    acc.dst = t.access;
    acc.dst_origin = s.target.get();
    acc.accumulate = true;
    acc.args.push_back({"src", to_operand(*this, v, s.value.get())});
    ops.push_back(std::move(acc));
  }
  out.push_back(ops_node(s, std::move(ops)));
}

// `with nki.compiler.no_reorder():` and the other compiler directives: scheduling hints around a
// block that always runs, lifted as a conditional whose condition always holds (printed back as
// the `with` it is).
void Lifter::with_block(const WithStmt& s, std::vector<Node>& out) {
  std::vector<Op> ops;
  current_ops = &ops;
  for (const auto& item : s.items) {
    AValue v = eval(*item.context);
    if (v.k != K::Symbol || v.s != "directive")
      fail(item.context->span, fmt::format("the context manager '{}' (only nki.compiler directives lift)",
                                           print_expr(*item.context)));
    if (item.target) fail(item.target->span, "a `with ... as` target");
  }
  if (!ops.empty()) fail(s.span, "a context manager computed by an operation");
  Node n = new_node(NodeKind::If, s);
  n.cond_l = IExpr(0), n.cond_r = IExpr(0), n.cond = Cmp::Eq;
  block(s.body, n.body);
  out.push_back(std::move(n));
}

void Lifter::if_stmt(const IfStmt& s, std::vector<Node>& out) {
  std::vector<Op> ops;
  current_ops = &ops;
  AValue t = eval(*s.test);
  if (!ops.empty()) fail(s.test->span, "a condition computed by an operation");
  out.push_back(if_node(s, std::move(t), [&](std::vector<Node>& o) { block(s.body, o); },
                        [&](std::vector<Node>& o) { block(s.orelse, o); }));
}

Node Lifter::if_node(const IfStmt& s, AValue t, const std::function<void(std::vector<Node>&)>& then_part,
                     const std::function<void(std::vector<Node>&)>& else_part) {
  // A host value as a condition: its Python truth (`if tail:`, `if cfg:`).
  if (t.k != K::Cond)
    if (auto truth = host_truth(t)) t = AValue::of_bool(*truth);
  Node n = new_node(NodeKind::If, s);
  if (t.k == K::Bool) {
    n.cond_l = IExpr(t.b ? 0 : 1), n.cond_r = IExpr(0), n.cond = Cmp::Eq;
  } else if (t.k == K::Cond) {
    n.cond_l = t.cl, n.cond_r = t.cr, n.cond = t.cmp;
  } else {
    fail(s.test->span, fmt::format("the condition '{}'", print_expr(*s.test)));
  }
  auto before = env;
  if (t.k == K::Cond) ++guarded;
  if (t.k != K::Bool || t.b) then_part(n.body);
  auto after_then = env;
  env = before;
  if (t.k != K::Bool || !t.b) else_part(n.orelse);
  if (t.k == K::Cond) --guarded;
  if (t.k == K::Bool) {
    if (t.b) env = after_then;
  } else {
    // Names bound differently by the two branches have no single value afterwards: an integer
    // (`rows = n % 128` on the last tile, `rows = 128` else: a first version's ragged tail) is the
    // choice between the two, as `a if c else b` is. A tile chosen per iteration (`new_max =
    // cur_max` on the first block, `nl.maximum(m, cur_max)` after) is no one tile of the form: the
    // name keeps the else branch's, and the `if` and every statement reading the name are frozen
    // (the then branch's result was dead in the form, and in_place wrote the else branch's result
    // over a tile the other branch's result was stored in place of: a wrong kernel).
    Ranges rg = ranges();
    bool chosen_tile = false;
    for (auto& [name, v] : after_then) {
      auto it = env.find(name);
      if (it == env.end()) {
        env[name] = v;
      } else if (v.k == K::Int && it->second.k == K::Int && !(v.i == it->second.i)) {
        it->second = AValue::of_int(IExpr::select(n.cond_l, n.cond, n.cond_r, v.i, it->second.i, &rg));
      } else if (it->second.k == K::Tile && (v.k != K::Tile || v.access.tensor != it->second.access.tensor)) {
        branch_bound[name] = it->second.access.tensor;
        chosen_tile = true;
      }
    }
    if (chosen_tile) freeze(n);
  }
  return n;
}

Lifter::Checkpoint Lifter::checkpoint() const {
  return {k, env, loop_stack, pending_inline, list_ranks, list_depth, number_loop, branch_bound, carried, save_attrs(),
          grid_statements, slice_statements, block_writes, name_writes, guarded, inline_depth};
}

void Lifter::rollback(const Checkpoint& c) {
  k = c.k;
  env = c.env;
  loop_stack = c.loop_stack;
  pending_inline = c.pending_inline;
  list_ranks = c.list_ranks;
  list_depth = c.list_depth;
  number_loop = c.number_loop;
  branch_bound = c.branch_bound;
  carried = c.carried;
  restore_attrs(c.attrs);
  grid_statements = c.grid_statements, slice_statements = c.slice_statements;
  block_writes = c.block_writes, name_writes = c.name_writes, guarded = c.guarded;
  inline_depth = c.inline_depth;
}

std::optional<AValue> Lifter::jump_loop(const ForStmt& s, std::vector<Node>& out) {
  if (!guard_continues_only(s.body)) return host_statement(s, out);
  // Host code (a search over a tuple skipping some items) runs at trace time; a loop doing tile work
  // whose continues guard the rest of its body lifts as a loop (loop_body).
  const Checkpoint saved = checkpoint();
  size_t before = out.size();
  try {
    return host_statement(s, out);
  } catch (const LiftError&) {
    rollback(saved);
    out.resize(before);
  }
  for_loop(s, out);
  return std::nullopt;
}

// `for r in range(T): if r == 1: ...; continue` then the rest of the body: Python runs the rest
// only where the condition is false, which is the if/else the form has a node for (Node::continues).
// The condition is any the form holds (a comparison of loop-dependent integers, or a host value).
void Lifter::loop_body(const Block& b, std::vector<Node>& out) {
  std::vector<const Stmt*> stmts;
  for (const auto& x : b) stmts.push_back(x.get());
  loop_body(stmts, out);
}

void Lifter::loop_body(const std::vector<const Stmt*>& stmts, std::vector<Node>& out) {
  bool outer = reads_branch_bound;
  int own_loop = std::exchange(break_loop, -1);  // nested bodies (a guard's branches) are not the top
  for (size_t j = 0; j < stmts.size(); ++j) {
    const Stmt& s = *stmts[j];
    reads_branch_bound = false;
    size_t first = out.size();
    if (s.kind != StmtKind::If || !guard_continue(static_cast<const IfStmt&>(s))) {
      statement(s, out);
    } else {
      auto& i = static_cast<const IfStmt&>(s);
      std::vector<Op> ops;
      current_ops = &ops;
      AValue t = eval(*i.test);
      if (!ops.empty()) fail(i.test->span, "a condition computed by an operation");
      if (t.k != K::Cond)
        if (auto truth = host_truth(t)) t = AValue::of_bool(*truth);
      if (i.body.back()->kind == StmtKind::Break) {
        // `if c: ...; break`: Python runs the iterations up to the first where c holds, that one up
        // to the break. The loop ends after it (stop_at_break); in that loop the break is taken at
        // most on the last iteration, where it is the continue the form reads (Node::continues).
        if (own_loop < 0)
          fail(i.body.back()->span, "a break that is not in an if at the top of a tile loop's body "
                                    "(`if c: ...; break` lifts there, its condition on loop variables and constants)");
        if (t.k == K::Bool) stop_at_break(own_loop, IExpr(t.b ? 0 : 1), Cmp::Eq, IExpr(0), i.test->span);
        else if (t.k == K::Cond) stop_at_break(own_loop, t.cl, t.cmp, t.cr, i.test->span);
        else fail(i.test->span, fmt::format("a break under the condition '{}' (it lifts when the condition compares "
                                            "loop variables and constants)", print_expr(*i.test)));
        own_loop = -1;
      } else if (t.k == K::Bool && t.b) {
        fail(i.body.back()->span, "a continue taken on every iteration (its condition holds for these arguments: "
                                  "the statements after it never run)");
      }
      std::vector<const Stmt*> taken;
      for (size_t x = 0; x + 1 < i.body.size(); ++x) taken.push_back(i.body[x].get());
      std::vector<const Stmt*> rest;
      for (const auto& x : i.orelse) rest.push_back(x.get());
      for (size_t x = j + 1; x < stmts.size(); ++x) rest.push_back(stmts[x]);
      Node n = if_node(i, std::move(t), [&](std::vector<Node>& o) { loop_body(taken, o); },
                       [&](std::vector<Node>& o) { loop_body(rest, o); });
      n.continues = true;
      out.push_back(std::move(n));
      j = stmts.size();  // the rest is the if's
    }
    if (!reads_branch_bound) continue;
    for (size_t x = first; x < out.size(); ++x) freeze(out[x]);
  }
  reads_branch_bound = outer;
}

namespace {

// A break or continue of the loop around the statement (not of a loop nested in it).
bool own_jump(const Stmt& s) {
  auto any = [](const Block& b) {
    for (const auto& x : b)
      if (own_jump(*x)) return true;
    return false;
  };
  switch (s.kind) {
    case StmtKind::Break: case StmtKind::Continue: return true;
    case StmtKind::If: return any(static_cast<const IfStmt&>(s).body) || any(static_cast<const IfStmt&>(s).orelse);
    case StmtKind::With: return any(static_cast<const WithStmt&>(s).body);
    default: return false;
  }
}

}  // namespace

bool guard_continue(const IfStmt& s) {
  if (s.body.empty() || (s.body.back()->kind != StmtKind::Continue && s.body.back()->kind != StmtKind::Break))
    return false;
  for (size_t j = 0; j + 1 < s.body.size(); ++j)
    if (own_jump(*s.body[j])) return false;
  return true;
}

bool guard_continues_only(const Block& b) {
  for (const auto& s : b) {
    if (s->kind == StmtKind::If && guard_continue(static_cast<const IfStmt&>(*s))) {
      if (!guard_continues_only(static_cast<const IfStmt&>(*s).orelse)) return false;
      continue;
    }
    if (own_jump(*s)) return false;
  }
  return true;
}

// A wrapper whose only tile work is one SPMD launch (`return gated_relu[grid](x, y)`, with host
// code around it: the grid from the shapes, a numpy output it passes in) or one plain call of the
// kernel (`return leaky_cap(x, slope=0.2)`): the form is the launched function's body, its program
// ids the loops of Kernel::grid, so every move sees its nest (the wrapper lifted, the launch was one
// helper node printed as the call, and no move could touch it). A wrapper launching several
// kernels, or launching inside a loop, keeps that form.
void Lifter::adopt_launch() {
  if (launches.size() != 1) return;
  Launch& l = launches.front();
  int calls = 0;
  for (const Node& n : k.body) {
    if (n.kind == NodeKind::Meta) continue;
    if (n.kind != NodeKind::Inline || n.helper != l.code->name || !n.ops.empty()) return;
    ++calls;
  }
  if (calls != 1) return;
  k.body = std::move(l.body);
  k.grid = l.grid;
  k.function = fn = l.code;
  k.name = l.code->name;
  // A tensor the launch passes is the launched function's parameter there (`def kernel(a):
  // return tiles[2, 4](a)` launching `def tiles(x)`): printed from the form, it is `x`.
  for (const auto& [name, v] : l.params)
    if (v.k == K::Tile && whole_access(v.access)) k.tensor(v.access.tensor).name = name;
  // Declared in the body, a tile is the program's: one per kernel run of the launched function.
  for (auto& t : k.tensors)
    if (std::find(k.grid.begin(), k.grid.end(), t.scope_loop) != k.grid.end()) t.scope_loop = -1;
}

// The loops around a statement that seeds or draws random numbers carry the generator's state
// from iteration to iteration: sequential in the form (printed as written while unchanged), so the
// moves that need independent iterations (interchange, jam, reorder, fusion) leave them alone.
void sequential_random_loops(Kernel& k) {
  std::function<bool(const std::vector<Node>&)> walk = [&](const std::vector<Node>& block) {
    bool any = false;
    for (const Node& n : block) {
      bool here = false;
      for (const auto& op : n.ops) here = here || is_random(op.api);
      here = walk(n.body) || here;
      here = walk(n.orelse) || here;
      if (here && n.kind == NodeKind::Loop) {
        k.loops.at(n.loop).kind = LoopKind::Sequential;
        k.loops.at(n.loop).ordered = true;
      }
      any = any || here;
    }
    return any;
  };
  walk(k.body);
}

Kernel Lifter::run() {
  block(fn->body, k.body);
  name_program_loops();
  if (adopt_launches) adopt_launch();
  // A shared HBM tensor the kernel declares and does not return is its scratch (a pass of a
  // multi-pass kernel staging a stage's result for the next, `buffer=nl.shared_hbm` as for an
  // output): what it holds is lost when the kernel ends, so it is not the kernel's result and
  // forwarding it on chip (forward_scratch) changes no output. Judged only when the kernel returns
  // something (its outputs known).
  // (A returned view returns what it views: `return out.reshape(...)`.)
  std::set<int> returned;
  for (int t : k.outputs)
    for (int x = t; x >= 0 && returned.insert(x).second; x = k.tensor(x).base) {
    }
  if (!k.outputs.empty())
    for (auto& t : k.tensors)
      if (t.role == TensorRole::Output && !returned.count(t.id)) t.role = TensorRole::Scratch;
  finish_lists(k.body);
  sequential_random_loops(k);
  k.dialect.grid_indexing = grid_statements > slice_statements;
  k.dialect.block_buffers = block_writes > name_writes;
  if (!fn->body.empty()) {
    uint32_t col = fn->body.front()->span.col;
    uint32_t def_col = fn->span.col;
    if (col > def_col) k.dialect.indent = std::string(col - def_col, ' ');
  }
  return std::move(k);
}

}  // namespace detail

const nki::FunctionCode& kernel_definition(const nki::ModuleAst& module, const std::string& entry) {
  const nki::SourceFile& file = *module.file;
  nki::lib::KernelChoice choice = nki::lib::choose_kernel(file.path, file.text, entry);
  if (choice.load_error) throw LiftError(*choice.load_error);
  if (const nki::FunctionCode* def = nki::lib::chosen_definition(module, choice)) return *def;
  // A kernel a factory made and the module bound (`kernel = make_kernel(tile=512)`).
  if (const nki::FunctionCode* def = nki::lib::nested_definition(module, choice)) return *def;
  nki::Diagnostic d;
  d.kind = choice.ok() ? nki::ErrorKind::Unsupported : nki::ErrorKind::Name;
  d.loc.file = module.file;  // the file, no line: the choice is the file's
  d.message = choice.ok() ? fmt::format("cannot lift: the function to run, '{}', is not a def of the file",
                                        choice.function)
                          : choice.message();
  throw LiftError(std::move(d));
}

Kernel lift(std::shared_ptr<const nki::ModuleAst> module, const std::vector<ArgSpec>& args, const std::string& entry,
            int nc_version, Launch launch) {
  const nki::FunctionCode& def = kernel_definition(*module, entry);
  std::string bound_as = nki::lib::choose_kernel(module->file->path, module->file->text, entry).attribute;
  detail::Lifter l(std::move(module), args, def, nc_version, bound_as);
  l.adopt_launches = launch == Launch::Adopted;
  Kernel k = l.run();
  k.entry = entry;
  note_written(k);
  return k;
}

Kernel lift_source(const std::string& path, const std::string& text, const std::vector<ArgSpec>& args,
                   const std::string& entry, int nc_version, Launch launch) {
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{path, text});
  std::shared_ptr<nki::ModuleAst> module;
  try {
    module = nki::parse_module(src);
  } catch (const nki::NkiError& e) {
    throw LiftError(e.diag);
  }
  return lift(module, args, entry, nc_version, launch);
}

}  // namespace loopnest
