// A call of one of the module's Python functions lifted by running its body in place (lifter.h,
// Lifter::inline_call): its arguments bound to its parameters, a branch a host value decides
// followed, its `global` / `nonlocal` names written back; a call that does tile work stays one
// helper node (printed as the call) until open_helpers opens it.
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

constexpr int kMaxHelperNesting = 64;

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
  // Helpers run at trace time, so their nesting is finite when the kernel traces; a grid driver
  // that recurses once per grid axis (`_for_grid(grid, body, _idx + (g,))`, Pallas style) nests
  // axes + 1 calls per level of bodies it drives (three levels of two axes: 9). The bound only stops
  // a lift that recurses without end.
  if (inline_depth > kMaxHelperNesting) fail(c.span, "helper calls nested this deep (recursion?)");
  auto saved_env = env;
  // The counters this call bumps, by the helper's names (keep_counter_bumps).
  BumpScope bumps(*this);
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
      const Loop loop = new_loop({.var = fmt::format("program_id_{}", d),
                                  .kind = LoopKind::Affine,
                                  .start = IExpr(0),
                                  .stop = int_of(grid[d], c),
                                  .program = true});
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
        // `return [e * inv for e in exps]`: a comprehension of one tile per item lifts as its loop
        // (lift_rolled.cpp), a node of the helper's in its place, the list named by the caller.
        const size_t pending_before = pending_inline.size();
        if (r.value->kind == ExprKind::ListComp) {
          assigned_comprehension = r.value.get();
          assigned_statement = s.get();
          assigned_name.clear();
        }
        result = eval(*r.value);
        assigned_comprehension = nullptr;
        if (ops.empty() && pending_inline.size() == pending_before + 1 && pending_inline.back().name == kComprehensionLoop) {
          nodes.push_back(std::move(pending_inline.back().nodes.front()));
          pending_inline.pop_back();
          top_launch = false;
        }
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
      // An int the helper bumps (`nonlocal count; count += 1`): a counter the loops count
      // (lift_counter.cpp, the bump recorded where the helper made it).
      const bool counter = before && before->k == K::Int && now->second.k == K::Int && bumped_cells.count(name);
      if (!loop_stack.empty() && !counter)
        fail(c.span, fmt::format("the call of '{}' rebinding the {} name '{}' inside a loop (a host value carried "
                                 "across the loop's iterations)", code.name, global ? "global" : "nonlocal", name));
      if (global) globals[name] = now->second;
      else (*defining_env)[name] = now->second;
    }
  }

  std::set<std::string> declared_outer = outer_globals;
  declared_outer.insert(outer_nonlocals.begin(), outer_nonlocals.end());
  keep_counter_bumps(code, declared_outer, closure && !captured, defining_env, c);
  env = saved_env;
  carried = std::move(saved_carried);
  current_ops = saved_ops;
  bool tile_work = false;
  for_each_node(nodes, [&](const Node& n, const std::vector<int>&) { tile_work = tile_work || !n.ops.empty(); });
  if (tile_work) pending_inline.push_back({code.name, std::move(nodes), saved_ops ? saved_ops->size() : 0});
  return result;
}

}  // namespace loopnest::detail
