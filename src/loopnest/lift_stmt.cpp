// The lifter's statement walk: imports and Python bindings are followed (and kept as meta nodes
// that print back verbatim), calls become tile operations; conditionals, `with` blocks and
// `continue` guards here, assignments lift_assign.cpp's, loops lift_loop.cpp's, calls of the
// module's functions lift_inline.cpp's, the setup and driver lift.cpp's.
#include <functional>
#include <map>
#include <optional>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

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
          assigned_statement = &s;  // an appended comprehension may roll as its loop (Lifter::append)
          std::vector<Op> made = append(c);
          // `tiles.append(helper(...))`: the helper's work is this statement's (an inline node
          // here), not the next statement's, which may be in another loop.
          if (made.empty() && pending_inline.empty()) push_meta(s, MetaKind::Binding, out);
          else out.push_back(ops_node(s, std::move(made)));
          return;
        }
        // `print(f"tile {i}")`: debug output of the trace, no tile work; its arguments may name a
        // loop variable (no host value), so they are not evaluated. It prints back verbatim.
        if (c.func->kind == ExprKind::Name) {
          std::vector<Op> none;
          current_ops = &none;
          AValue f = eval(*c.func);
          if (f.k == K::Func && f.s == "builtins.print") {
            push_meta(s, MetaKind::Assert, out);
            return;
          }
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
      if (v.k == K::Bool && !v.b) {
        // An Assertion, not Unsupported: the kernel itself says it does not run at these shapes (a
        // rewrite whose blocking factor does not divide a trip count is refused on it: apply_site).
        Diagnostic d;
        d.kind = ErrorKind::Assertion;
        d.loc = loc_of(module->file, a.test->span);
        d.message = "cannot lift a kernel whose assertion fails for these arguments";
        throw LiftError(std::move(d));
      }
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
        const Checkpoint saved = checkpoint();
        const size_t before = out.size();
        try {
          if (host_statement(s, out)) fail(s.span, "a return inside a loop of the kernel");
          return;
        } catch (const LiftError& as_host) {
          // Tile work in it: Python runs the copies up to the break its host condition decides,
          // as a while loop without jumps is lifted (host_while); else the host refusal stands.
          rollback(saved);
          out.resize(before);
          try {
            host_while(static_cast<const WhileStmt&>(s), out);
            return;
          } catch (const LiftError&) {
            rollback(saved);
            out.resize(before);
            throw as_host;
          }
        }
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
  // Which iterations reach each branch, for the reads of a list of None there (lift_none_reads.cpp).
  auto branch = [&](bool holds, const std::function<void(std::vector<Node>&)>& part, std::vector<Node>& o) {
    if (t.k == K::Cond) guards.push_back({t.cl, t.cr, t.cmp, holds});
    part(o);
    if (t.k == K::Cond) guards.pop_back();
  };
  if (t.k != K::Bool || t.b) branch(true, then_part, n.body);
  auto after_then = env;
  env = before;
  if (t.k != K::Bool || !t.b) branch(false, else_part, n.orelse);
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
    // An integer the branches leave different: the choice between them.
    auto choose_int = [&](const AValue& then_v, AValue& else_v) {
      if (then_v.k == K::Int && else_v.k == K::Int && !(then_v.i == else_v.i))
        else_v = AValue::of_int(IExpr::select(n.cond_l, n.cond, n.cond_r, then_v.i, else_v.i, &rg));
    };
    for (auto& [name, v] : after_then) {
      auto it = env.find(name);
      if (it == env.end()) {
        env[name] = v;
      } else if (v.k == K::Int && it->second.k == K::Int) {
        choose_int(v, it->second);
      } else if (v.k == K::List && it->second.k == K::List && v.items.size() == it->second.items.size()) {
        // A counter kept in a list (`tcount[0] += 1` under the condition): its item is the choice too.
        for (size_t j = 0; j < v.items.size(); ++j) choose_int(v.items[j], it->second.items[j]);
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
          none_bindings, guards, grid_statements, slice_statements, block_writes, name_writes, guarded, inline_depth};
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
  none_bindings = c.none_bindings;
  guards = c.guards;
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

}  // namespace loopnest::detail
