// Reuse transformations for matmul-like loop nests: a tile loaded inside an inner loop that does not
// depend on the outer (row) loop is re-loaded for every row tile; an operand prepared per inner
// block (transposed, loaded) is prepared again for every outer block. A kernel engineer blocks the
// row loop and shares the tile across the block (unroll-and-jam: `unroll_jam`), or makes the loop
// whose preparation is expensive the outer one (`reorder_reuse`: imperfect interchange, then the
// same blocking so the other operand is streamed once per block instead of once per row tile).
//
// Both rewrites rely on the `nl.affine_range` contract: iterations are independent, so they may be
// interleaved. Statements of the unrolled body whose values do not depend on the row index (nor on
// anything that does) are emitted once and shared by the copies; everything else is replicated with
// per-copy names. The factor must divide the trip count (asserted in the rewritten kernel).
#include <algorithm>
#include <optional>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

// `for x in nl.affine_range(E)`: one positional bound, a Name target. Only affine loops promise
// independent iterations; the bound `E` is returned.
Expr* affine_bound(Stmt& s) {
  if (s.kind != StmtKind::For) return nullptr;
  auto& f = static_cast<ForStmt&>(s);
  auto* call = as_call(f.iter.get(), "nl.affine_range");
  if (f.target->kind != ExprKind::Name || !call || call->args.size() != 1 || !call->keywords.empty()) return nullptr;
  if (call->args[0]->kind == ExprKind::Starred) return nullptr;
  return call->args[0].get();
}

std::string loop_var(ForStmt& f) { return text(*f.target); }

StmtPtr clone_stmt(Stmt& s) {
  Block one;
  one.push_back(StmtPtr(&s));
  std::string printed = print_block(one, 0);
  one[0].release();
  auto module = parse_source(printed);
  if (module->body.size() != 1) throw RewriteError("statement does not re-parse as one statement");
  return std::move(module->body[0]);
}

// Calls whose result depends only on their arguments: such a value computed from row-independent
// inputs is the same for every copy and can be computed once. Allocations count too (a fresh
// buffer); whether its contents are shared is decided by the writes into it.
bool pure_call(const std::string& name) {
  static const char* kPure[] = {
      "nl.load", "nl.load_transpose2d", "nisa.nc_transpose", "nl.transpose", "nisa.nc_matmul", "nl.matmul",
      "nl.broadcast_to", "nisa.iota", "nisa.activation", "nisa.tensor_scalar", "nisa.tensor_tensor", "nl.copy",
      "nisa.tensor_copy", "nl.multiply", "nl.add", "nl.subtract", "nl.exp", "nl.par_dim", "nl.ndarray", "nl.zeros",
      "nl.full", "nl.arange", "nl.ds"};
  return std::any_of(std::begin(kPure), std::end(kPure), [&](const char* p) { return name == p; });
}

bool allocation(Expr* v) {
  std::string n = v ? call_name(*v) : "";
  return n == "nl.ndarray" || n == "nl.zeros" || n == "nl.full";
}

bool shareable_value(Expr& v) {
  bool ok = true;
  walk(v, [&](Expr& e) {
    if (e.kind == ExprKind::Lambda || e.kind == ExprKind::ListComp || e.kind == ExprKind::GeneratorExp) ok = false;
    if (e.kind != ExprKind::Call) return;
    auto& call = static_cast<CallExpr&>(e);
    if (call.func->kind == ExprKind::Name) {
      const std::string& f = static_cast<NameExpr&>(*call.func).id;
      ok = ok && (f == "len" || f == "min" || f == "max" || f == "int" || f == "range");
    } else {
      ok = ok && pure_call(call_name(e));
    }
  });
  return ok;
}

// `tiles.append(v)`, `tiles.extend(vs)`, `tiles.insert(i, v)`: a Python list filled in place.
bool list_mutation(const CallExpr& call) {
  if (call.func->kind != ExprKind::Attribute) return false;
  const auto& attr = static_cast<const AttributeExpr&>(*call.func);
  return attr.value->kind == ExprKind::Name && (attr.attr == "append" || attr.attr == "extend" || attr.attr == "insert");
}

// The name a simple statement writes in place (`x[...] = v`, `x += v`, `x[...] += v`,
// `nl.store(x[...], ...)`, `op(..., dst=x)`, `x.append(v)`), or "".
std::string mutated_base(Stmt& s) {
  Expr* target = nullptr;
  if (s.kind == StmtKind::AugAssign) target = static_cast<AugAssignStmt&>(s).target.get();
  if (s.kind == StmtKind::Assign) {
    auto& a = static_cast<AssignStmt&>(s);
    if (a.targets.size() == 1 && a.targets[0]->kind == ExprKind::Subscript) target = a.targets[0].get();
  }
  if (s.kind == StmtKind::Expr && static_cast<ExprStmt&>(s).value->kind == ExprKind::Call) {
    auto& call = static_cast<CallExpr&>(*static_cast<ExprStmt&>(s).value);
    if (list_mutation(call)) return static_cast<NameExpr&>(*static_cast<AttributeExpr&>(*call.func).value).id;
    ExprPtr* dst = argument(call, "dst");
    if (!dst) dst = argument(call, "out");
    if (!dst && call_name(call) == "nl.store") dst = argument(call, "dst", 0);
    if (dst) target = dst->get();
  }
  if (!target) return "";
  while (target->kind == ExprKind::Subscript) target = static_cast<SubscriptExpr*>(target)->value.get();
  return target->kind == ExprKind::Name ? static_cast<NameExpr*>(target)->id : "";
}

// Which names of an affine loop's body must get one copy per unrolled iteration ("per copy") and
// which are the same for every iteration ("shared"), by a fixpoint from the loop variable.
struct JamPlan {
  std::string var;
  std::set<std::string> per_copy;  // includes var
  std::set<std::string> locals;    // names bound in the body
  bool shares_nested_load = false; // some shared statement below a nested loop loads from HBM
};

void simple_statements(Block& b, int depth, std::vector<std::pair<Stmt*, int>>& out, bool& supported) {
  for (auto& s : b) {
    switch (s->kind) {
      case StmtKind::For:
        simple_statements(static_cast<ForStmt&>(*s).body, depth + 1, out, supported);
        break;
      case StmtKind::If:
        simple_statements(static_cast<IfStmt&>(*s).body, depth + 1, out, supported);
        simple_statements(static_cast<IfStmt&>(*s).orelse, depth + 1, out, supported);
        break;
      case StmtKind::Assign: case StmtKind::AugAssign: case StmtKind::Expr: case StmtKind::Pass:
        out.push_back({s.get(), depth});
        break;
      default:  // return, break, while, nested defs: not unrolled
        supported = false;
    }
  }
}

// Emitted once for the copies of a block: a binding of a shared name, or a write into a buffer the
// body makes (`x[...] = v`, a destination-first call `nisa.nc_matmul(dst=x, ...)`) that no copy's
// data reaches. The body makes such a buffer once per block, so a write per copy would apply again
// to the same buffer: a matmul accumulating into it would count twice (a held-out newer-API swiglu:
// reorder_reuse blocked by 2 doubled its gate and up products, rel. error 3.0). Other effects (a
// store to HBM, a write into a buffer made before the loop) run once per copy, as once per row.
bool shared_stmt(Stmt& s, const JamPlan& plan) {
  std::string x = assigned_name(s);
  if (!x.empty()) return !plan.per_copy.count(x);
  std::string base = mutated_base(s);
  return !base.empty() && plan.locals.count(base) && !plan.per_copy.count(base);
}

bool headers_independent(Block& b, const std::set<std::string>& per_copy) {
  bool ok = true;
  for (auto& s : b) {
    if (s->kind == StmtKind::For) {
      auto& f = static_cast<ForStmt&>(*s);
      ok = ok && !intersects(names_in(*f.iter), per_copy) && !intersects(names_in(*f.target), per_copy) &&
           headers_independent(f.body, per_copy);
    } else if (s->kind == StmtKind::If) {
      auto& i = static_cast<IfStmt&>(*s);
      ok = ok && !intersects(names_in(*i.test), per_copy) && headers_independent(i.body, per_copy) &&
           headers_independent(i.orelse, per_copy);
    }
  }
  return ok;
}

bool binds_without_reading(Stmt& s, const std::string& x) {
  return assigned_name(s) == x && !names_in(*assigned_value(s)).count(x);
}

// Whether the first statement of `b` (in execution order, nested blocks included) that mentions
// `x` binds it without reading it. `found` tells whether `x` is mentioned at all.
bool first_mention_binds(Block& b, const std::string& x, bool& found) {
  for (auto& s : b) {
    if (s->kind == StmtKind::For) {
      auto& f = static_cast<ForStmt&>(*s);
      if (names_in(*f.iter).count(x)) return found = true, false;
      if (names_in(*f.target).count(x)) return found = true, true;
      bool r = first_mention_binds(f.body, x, found);
      if (found) return r;
    } else if (s->kind == StmtKind::If) {
      if (count_uses(*s, x) > 0) return found = true, false;  // a branch may or may not bind it
    } else if (count_uses(*s, x) > 0) {
      found = true;
      return binds_without_reading(*s, x);
    }
  }
  return true;
}

// Whether `x` may be read after `stmt` (a statement somewhere in `kernel`): the first later
// statement in program order that mentions it does not simply rebind it.
bool live_after(Block& kernel, Stmt* stmt, const std::string& x) {
  std::vector<Stmt*> order;  // pre-order; a statement's subtree follows it
  std::set<Stmt*> conditional;  // inside a branch: a binding there does not kill `x`
  std::function<void(Block&, bool)> flatten = [&](Block& b, bool in_branch) {
    for (auto& s : b) {
      order.push_back(s.get());
      if (in_branch) conditional.insert(s.get());
      bool branch = in_branch || s->kind == StmtKind::If;
      if (Block* c = child_block(*s)) flatten(*c, branch);
      if (s->kind == StmtKind::If) flatten(static_cast<IfStmt&>(*s).orelse, true);
    }
  };
  flatten(kernel, false);
  auto at = std::find(order.begin(), order.end(), stmt);
  if (at == order.end()) return true;
  std::set<Stmt*> inside;
  std::function<void(Block&)> mark = [&](Block& b) {
    for (auto& s : b) {
      inside.insert(s.get());
      if (Block* c = child_block(*s)) mark(*c);
      if (s->kind == StmtKind::If) mark(static_cast<IfStmt&>(*s).orelse);
    }
  };
  if (Block* c = child_block(*stmt)) mark(*c);
  for (auto it = at + 1; it != order.end(); ++it) {
    Stmt& s = **it;
    if (inside.count(&s)) continue;
    if (s.kind == StmtKind::For) {
      auto& f = static_cast<ForStmt&>(s);
      if (names_in(*f.iter).count(x)) return true;
      if (names_in(*f.target).count(x)) return false;
      continue;
    }
    if (s.kind == StmtKind::If) {
      if (names_in(*static_cast<IfStmt&>(s).test).count(x)) return true;
      continue;
    }
    if (count_uses(s, x) > 0) return conditional.count(&s) || !binds_without_reading(s, x);
  }
  return false;
}

// Null unless `loop` can be unrolled and jammed: no control flow leaves the body, nested loop
// ranges and conditions do not depend on the copy, and no per-copy name is used outside the loop
// (`used_outside`, i.e. live after it) or read before the loop binds it.
std::optional<JamPlan> plan_jam(ForStmt& loop, const std::function<bool(const std::string&)>& used_outside) {
  JamPlan plan;
  plan.var = loop_var(loop);
  plan.per_copy = {plan.var};
  plan.locals = bound_names(loop.body);
  std::vector<std::pair<Stmt*, int>> stmts;
  bool supported = true;
  simple_statements(loop.body, 0, stmts, supported);
  if (!supported) return std::nullopt;
  std::set<std::string> mutated;
  for (auto& [s, depth] : stmts)
    if (std::string b = mutated_base(*s); !b.empty()) mutated.insert(b);
  for (bool changed = true; changed;) {
    changed = false;
    auto mark = [&](const std::string& x) { changed = plan.per_copy.insert(x).second || changed; };
    for (auto& [s, depth] : stmts) {
      if (s->kind == StmtKind::Assign) {
        auto& a = static_cast<AssignStmt&>(*s);
        std::string x = assigned_name(*s);
        if (x.empty() && mutated_base(*s).empty()) {  // tuple targets: one copy each, conservatively
          for (auto& t : a.targets)
            for (auto& n : names_in(*t)) mark(n);
          continue;
        }
        if (!x.empty() && !plan.per_copy.count(x) &&
            (intersects(names_in(*a.value), plan.per_copy) || !shareable_value(*a.value) ||
             (mutated.count(x) && !allocation(a.value.get()))))
          mark(x);
      }
      // A local buffer written with per-copy data is per copy.
      std::string base = mutated_base(*s);
      if (!base.empty() && plan.locals.count(base) && !plan.per_copy.count(base) &&
          intersects(names_in(*s), plan.per_copy))
        mark(base);
      if (s->kind == StmtKind::AugAssign && base.empty()) return std::nullopt;
    }
  }
  if (!headers_independent(loop.body, plan.per_copy)) return std::nullopt;
  for (auto& x : plan.per_copy) {
    if (x == plan.var) continue;
    bool found = false;  // copies get their own names: the value from before the loop must not be read
    if (used_outside(x) || !first_mention_binds(loop.body, x, found)) return std::nullopt;
  }
  for (auto& [s, depth] : stmts) {
    if (depth == 0 || !shared_stmt(*s, plan)) continue;
    bool loads = false;
    for_each_expr(*s, [&](ExprPtr& p) {
      loads = loads || (p && (call_name(*p) == "nl.load" || call_name(*p) == "nl.load_transpose2d"));
    });
    plan.shares_nested_load = plan.shares_nested_load || loads;
  }
  return plan;
}

std::string fresh(const std::string& base, const std::set<std::string>& used) {
  std::string name = base;
  while (used.count(name)) name += "_";
  return name;
}

struct JamNames {
  std::string block_var;
  std::vector<std::map<std::string, std::string>> copy;  // per copy: name -> renamed
};

void emit_jammed(Block& src, Block& dst, const JamPlan& plan, const JamNames& names) {
  for (auto& s : src) {
    if (s->kind == StmtKind::For) {
      auto& f = static_cast<ForStmt&>(*s);
      auto loop = std::make_unique<ForStmt>(f.span);
      loop->target = clone(*f.target);
      loop->iter = clone(*f.iter);
      loop->comments_before = f.comments_before;
      loop->comment_after = f.comment_after;
      emit_jammed(f.body, loop->body, plan, names);
      dst.push_back(std::move(loop));
    } else if (s->kind == StmtKind::If) {
      auto& i = static_cast<IfStmt&>(*s);
      auto branch = std::make_unique<IfStmt>(i.span);
      branch->test = clone(*i.test);
      branch->is_elif = i.is_elif;
      branch->comments_before = i.comments_before;
      branch->comment_after = i.comment_after;
      emit_jammed(i.body, branch->body, plan, names);
      emit_jammed(i.orelse, branch->orelse, plan, names);
      dst.push_back(std::move(branch));
    } else if (s->kind == StmtKind::Pass || shared_stmt(*s, plan)) {
      dst.push_back(clone_stmt(*s));
    } else {
      for (size_t c = 0; c < names.copy.size(); ++c) {
        StmtPtr copy = clone_stmt(*s);
        for (const auto& [from, to] : names.copy[c]) rename(*copy, from, to);
        if (c > 0) copy->comments_before.clear(), copy->comment_after.clear();
        dst.push_back(std::move(copy));
      }
    }
  }
}

// The unrolled-and-jammed loop, preceded by an assert that the factor divides the trip count (it
// is not known statically; a kernel whose rows do not come in whole blocks fails at trace time
// instead of silently skipping rows). No remainder loop: its copy of the body would only offer
// dead sites to the other rewrites.
Block build_jam(ForStmt& loop, const JamPlan& plan, int factor, const std::set<std::string>& used) {
  Expr* bound = affine_bound(loop);
  std::string e = text(*bound);
  JamNames names;
  names.block_var = fresh(plan.var + "_blk", used);
  std::set<std::string> taken = used;
  taken.insert(names.block_var);
  for (int c = 0; c < factor; ++c) {
    std::map<std::string, std::string> m;
    for (const auto& x : plan.per_copy) {
      m[x] = fresh(fmt::format("{}_{}", x, c), taken);
      taken.insert(m[x]);
    }
    names.copy.push_back(std::move(m));
  }
  StmtPtr check = parse_stmt(fmt::format("assert ({}) % {} == 0, \"unroll_jam: the trip count of `{}` must be a multiple of {}\"",
                                         e, factor, plan.var, factor));
  check->comments_before = loop.comments_before;
  auto main = std::make_unique<ForStmt>(loop.span);
  main->target = parse_expr(names.block_var);
  main->iter = parse_expr(fmt::format("nl.affine_range(({}) // {})", e, factor));
  main->comments_before.push_back(fmt::format("# {} iterations of `{}` per step share the tiles that do not depend on it",
                                              factor, plan.var));
  main->comment_after = loop.comment_after;
  for (int c = 0; c < factor; ++c)
    main->body.push_back(parse_stmt(c == 0 ? fmt::format("{} = {} * {}", names.copy[c].at(plan.var), names.block_var, factor)
                                           : fmt::format("{} = {} * {} + {}", names.copy[c].at(plan.var),
                                                         names.block_var, factor, c)));
  emit_jammed(loop.body, main->body, plan, names);
  Block out;
  out.push_back(std::move(check));
  out.push_back(std::move(main));
  return out;
}

const int kFactors[] = {2, 4};

class UnrollJam : public MatchingTransform {
 public:
  std::string name() const override { return "unroll_jam"; }
  std::string description() const override {
    return "unroll a row loop by 2 or 4 and jam the copies into its inner loops, so a tile that does not depend "
           "on the row (a streamed operand) is loaded once per block of rows instead of once per row";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    std::set<std::string> used = names_in(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (!affine_bound(*b[i])) continue;
        auto& loop = static_cast<ForStmt&>(*b[i]);
        auto outside = [&](const std::string& x) { return live_after(kernel, &loop, x); };
        auto plan = plan_jam(loop, outside);
        if (!plan || !plan->shares_nested_load) continue;
        for (int f : kFactors) {
          Site site = make_site(loop, fmt::format("unroll `{}` by {} and share its row-independent loads", brief(loop), f),
                                {{"factor", std::to_string(f)}});
          if (sink(std::move(site), [&b, &loop, i, f, p = *plan, &used] {
                Block repl = build_jam(loop, p, f, used);
                erase_stmt(b, i);
                for (size_t k = 0; k < repl.size(); ++k) b.insert(b.begin() + static_cast<long>(i + k), std::move(repl[k]));
              }))
            return true;
        }
      }
      return false;
    });
  }
};

// The imperfect nest `for n: A; for m [for m2 ...]: B_pre; B_rest` where B_pre (the longest prefix of
// the innermost body that uses neither `n` nor what A binds) prepares an operand per row.
// Whether `s` reads one of `names` before binding it itself (a nested `for k` that reuses the name
// of another loop's variable does not read that variable).
bool reads_any(Stmt& s, const std::set<std::string>& names) {
  Block one;
  one.push_back(StmtPtr(&s));
  bool reads = false;
  for (const auto& x : names) {
    bool found = false;
    if (count_uses(s, x) > 0 && !first_mention_binds(one, x, found)) reads = true;
  }
  one[0].release();
  return reads;
}

struct Reorder {
  ForStmt* outer = nullptr;
  std::vector<ForStmt*> chain;  // the inner perfect nest, outermost first
  size_t a_size = 0;            // statements of the outer body before the chain
  size_t pre_size = 0;          // statements of the innermost body that move out of `n`
};

std::optional<Reorder> match_reorder(ForStmt& outer) {
  if (!affine_bound(outer) || outer.body.size() < 2 || !affine_bound(*outer.body.back())) return std::nullopt;
  Reorder r;
  r.outer = &outer;
  r.a_size = outer.body.size() - 1;
  r.chain.push_back(static_cast<ForStmt*>(outer.body.back().get()));
  while (r.chain.back()->body.size() == 1 && affine_bound(*r.chain.back()->body[0]))
    r.chain.push_back(static_cast<ForStmt*>(r.chain.back()->body[0].get()));
  std::set<std::string> a_names = {loop_var(outer)}, a_bound, chain_vars;
  {
    Block a;  // borrowed view of A (released below)
    for (size_t k = 0; k < r.a_size; ++k) a.push_back(StmtPtr(outer.body[k].get()));
    a_bound = bound_names(a);
    for (auto& s : a) s.release();
  }
  for (auto* f : r.chain) chain_vars.insert(loop_var(*f));
  for (size_t k = 0; k < r.a_size; ++k)
    if (reads_any(*outer.body[k], chain_vars)) return std::nullopt;
  a_names.merge(a_bound);
  for (auto* f : r.chain)
    if (intersects(names_in(*f->iter), a_names)) return std::nullopt;
  Block& body = r.chain.back()->body;
  // A statement depends on A when it reads one of A's names before binding it itself (a nested
  // `for k` reusing A's loop variable name does not read A's `k`).
  while (r.pre_size < body.size() && !reads_any(*body[r.pre_size], a_names)) ++r.pre_size;
  // The prefix now runs once per row instead of once per (column block, row): it must not bind
  // what the rest updates in place (`acc = zeros` ... `acc += ...` would accumulate across column
  // blocks), nor read what the rest writes. Shrink it until neither happens.
  for (bool shrunk = true; shrunk && r.pre_size > 0;) {
    shrunk = false;
    Block rest;  // borrowed view
    for (size_t k = r.pre_size; k < body.size(); ++k) rest.push_back(StmtPtr(body[k].get()));
    std::set<std::string> written = subscript_stored(rest);
    for_each_block(rest, [&](Block& blk) {
      for (auto& st : blk)
        if (st->kind == StmtKind::AugAssign) written.merge(names_in(*static_cast<AugAssignStmt&>(*st).target));
    });
    for (auto& st : rest) st.release();
    for (size_t k = 0; k < r.pre_size; ++k) {
      Block one;
      one.push_back(StmtPtr(body[k].get()));
      bool clash = intersects(bound_names(one), written) || intersects(names_in(*body[k]), written);
      one[0].release();
      if (clash) {
        r.pre_size = k;
        shrunk = true;
        break;
      }
    }
  }
  if (r.pre_size == 0 || r.pre_size == body.size()) return std::nullopt;
  // The prefix must prepare something the rest uses (else the swap only reorders independent work).
  Block pre;
  for (size_t k = 0; k < r.pre_size; ++k) pre.push_back(StmtPtr(body[k].get()));
  std::set<std::string> pre_bound = bound_names(pre);
  bool prepares_loop_work = false;
  for (auto& s : pre) prepares_loop_work = prepares_loop_work || child_block(*s) != nullptr;
  for (auto& s : pre) s.release();
  if (!prepares_loop_work) return std::nullopt;
  // A must not read what the prefix binds (that would be a value carried across iterations of n),
  // and the rest must not read a prefix name that A rebinds (A now runs between them).
  for (size_t k = 0; k < r.a_size; ++k)
    if (reads_any(*outer.body[k], pre_bound)) return std::nullopt;
  std::set<std::string> both;
  for (const auto& x : pre_bound)
    if (a_bound.count(x)) both.insert(x);
  for (size_t k = r.pre_size; k < body.size(); ++k)
    if (reads_any(*body[k], both)) return std::nullopt;
  return r;
}

// Builds the reordered nest: the chain headers outermost, then B_pre, then `for n: A; B_rest`.
StmtPtr build_reorder(const Reorder& r) {
  Block& body = r.chain.back()->body;
  auto inner = std::make_unique<ForStmt>(r.outer->span);
  inner->target = clone(*r.outer->target);
  inner->iter = clone(*r.outer->iter);
  inner->comments_before = r.outer->comments_before;
  for (size_t k = 0; k < r.a_size; ++k) inner->body.push_back(clone_stmt(*r.outer->body[k]));
  for (size_t k = r.pre_size; k < body.size(); ++k) inner->body.push_back(clone_stmt(*body[k]));
  StmtPtr nest;
  ForStmt* innermost = nullptr;
  for (auto* f : r.chain) {
    auto level = std::make_unique<ForStmt>(f->span);
    level->target = clone(*f->target);
    level->iter = clone(*f->iter);
    level->comments_before = f->comments_before;
    ForStmt* raw = level.get();
    if (!nest) nest = std::move(level);
    else innermost->body.push_back(std::move(level));
    innermost = raw;
  }
  for (size_t k = 0; k < r.pre_size; ++k) innermost->body.push_back(clone_stmt(*body[k]));
  innermost->body.push_back(std::move(inner));
  return nest;
}

ForStmt* innermost_of(Stmt& nest) {
  auto* f = static_cast<ForStmt*>(&nest);
  while (f->body.size() == 1 && f->body[0]->kind == StmtKind::For && affine_bound(*f->body[0]))
    f = static_cast<ForStmt*>(f->body[0].get());
  return f;
}

// Replaces the loop `target` (a statement of `parent`) by `repl`.
void splice(Block& parent, Stmt* target, Block repl) {
  for (size_t i = 0; i < parent.size(); ++i) {
    if (parent[i].get() != target) continue;
    erase_stmt(parent, i);
    for (size_t k = 0; k < repl.size(); ++k) parent.insert(parent.begin() + static_cast<long>(i + k), std::move(repl[k]));
    return;
  }
  throw RewriteError("reorder_reuse: loop to block not found");
}

class ReorderReuse : public MatchingTransform {
 public:
  std::string name() const override { return "reorder_reuse"; }
  std::string description() const override {
    return "make the row loop whose operand is prepared per row (loaded, transposed) the outer loop, blocked by "
           "1, 2 or 4 rows, so that preparation happens once per row instead of once per column block and the "
           "other operand is streamed once per block of rows";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    std::set<std::string> used = names_in(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::For) continue;
        auto& outer = static_cast<ForStmt&>(*b[i]);
        auto r = match_reorder(outer);
        if (!r) continue;
        StmtPtr nest = build_reorder(*r);
        ForStmt* row = innermost_of(*nest);
        auto outside = [&](const std::string& x) { return live_after(kernel, &outer, x); };
        for (int f : {1, 2, 4}) {
          std::optional<JamPlan> plan;
          if (f > 1 && !(plan = plan_jam(*row, outside))) continue;
          Site site = make_site(outer, fmt::format("make `{}` the outer loop{} and run `{}` inside it", brief(*r->chain.back()),
                                                   f > 1 ? fmt::format(" (blocked by {})", f) : "", brief(outer)),
                                {{"factor", std::to_string(f)}});
          if (sink(std::move(site), [&b, i, f, plan, &used, &r] {
                StmtPtr fresh_nest = build_reorder(*r);
                b[i] = std::move(fresh_nest);
                if (f == 1) return;
                ForStmt* inner_row = innermost_of(*b[i]);
                Block* parent = &b;
                if (inner_row != b[i].get()) {
                  auto* p = static_cast<ForStmt*>(b[i].get());
                  while (p->body[0].get() != inner_row) p = static_cast<ForStmt*>(p->body[0].get());
                  parent = &p->body;
                }
                splice(*parent, inner_row, build_jam(*inner_row, *plan, f, used));
              }))
            return true;
        }
      }
      return false;
    });
  }
};

// Whether `x` is bound to a PSUM tile in `b` (a matmul result or a PSUM allocation): PSUM holds 8
// banks, so such tiles cannot be kept for every iteration of a loop.
bool psum_tile(Block& b, const std::string& x) {
  bool psum = false;
  for_each_block(b, [&](Block& blk) {
    for (auto& st : blk) {
      if (assigned_name(*st) != x) continue;
      Expr* v = assigned_value(*st);
      std::string callee = call_name(*v);
      if (callee == "nisa.nc_matmul" || callee == "nl.matmul" || callee == "nisa.nc_transpose") psum = true;
      if (v->kind != ExprKind::Call) continue;
      if (auto* buf = argument(static_cast<CallExpr&>(*v), "buffer"); buf && text(**buf) == "nl.psum") psum = true;
    }
  });
  return psum;
}

bool mentions_call(Block& b, const std::function<bool(CallExpr&)>& pred) {
  bool found = false;
  for_each_expr(b, [&](ExprPtr& p) {
    if (p && p->kind == ExprKind::Call) found = found || pred(static_cast<CallExpr&>(*p));
  });
  return found;
}

// `for m in affine_range(E): HEAD; TAIL` where HEAD loads and prepares per-row tiles (x, ...) that
// TAIL's matmuls read -> `x_tiles = []; for m: HEAD; x_tiles.append(x)` then `for m: TAIL[x :=
// x_tiles[m]]`. The Tensor Engine no longer waits, row after row, for the load -> transpose ->
// copy chain of the row it is about to multiply: all rows are prepared first (bmm).
class PipelinePrep : public MatchingTransform {
 public:
  std::string name() const override { return "pipeline_prep"; }
  std::string description() const override {
    return "split a row loop into a loop that loads and prepares (transposes) every row's operand into a list of "
           "tiles and a loop that multiplies, so the matmuls do not wait on each row's preparation chain";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    std::set<std::string> used = names_in(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (!affine_bound(*b[i])) continue;
        auto& loop = static_cast<ForStmt&>(*b[i]);
        for (size_t p = 1; p < loop.body.size(); ++p) {
          std::vector<std::string> flow = flowing_names(loop, p);
          if (flow.empty()) continue;
          std::string names;
          for (const auto& x : flow) names += (names.empty() ? "`" : ", `") + x + "`";
          Site site = make_site(loop, fmt::format("prepare {} for every row of `{}` before the matmuls", names, brief(loop)),
                                {{"at", std::to_string(p)}});
          if (sink(std::move(site), [&b, &loop, i, p, flow, &used] { split(b, loop, i, p, flow, used); })) return true;
        }
      }
      return false;
    });
  }

 private:
  // The names HEAD = body[0, p) hands to TAIL = body[p, end), or none when the split is illegal or
  // pointless.
  static std::vector<std::string> flowing_names(ForStmt& loop, size_t p) {
    Block head, tail;  // borrowed views (released below)
    for (size_t k = 0; k < loop.body.size(); ++k) (k < p ? head : tail).push_back(StmtPtr(loop.body[k].get()));
    std::vector<std::string> flow;
    // A preparation chain worth running ahead: a load and a transpose (the latency the matmuls
    // would wait for), feeding matmuls.
    auto transpose = [](CallExpr& c) {
      std::string n = call_name(c);
      auto* flag = argument(c, "is_transpose");
      return n == "nisa.nc_transpose" || n == "nl.load_transpose2d" ||
             (n == "nisa.nc_matmul" && flag && text(**flag) == "True");
    };
    bool ok = mentions_call(head, [](CallExpr& c) { return call_name(c) == "nl.load"; }) &&
              mentions_call(head, transpose) &&
              mentions_call(tail, [](CallExpr& c) { return call_name(c) == "nisa.nc_matmul"; });
    std::set<std::string> var = names_in(*loop.target);
    std::set<std::string> head_bound = bound_names(head), tail_bound = bound_names(tail);
    std::set<std::string> tail_written = subscript_stored(tail);
    // HEAD now runs for every row before any TAIL: it must not read what TAIL binds or writes.
    std::set<std::string> tail_out = tail_bound;
    tail_out.insert(tail_written.begin(), tail_written.end());
    for (auto& s : head) ok = ok && !reads_any(*s, tail_out);
    for (const auto& x : head_bound) {
      if (var.count(x)) continue;
      bool read = false;
      for (auto& s : tail) read = read || reads_any(*s, {x});
      if (!read) continue;
      // Kept for every row: no PSUM tile, nothing TAIL rebinds or writes into.
      if (tail_bound.count(x) || tail_written.count(x) || psum_tile(head, x)) ok = false;
      flow.push_back(x);
    }
    for (auto& s : head) s.release();
    for (auto& s : tail) s.release();
    if (!ok) flow.clear();
    return flow;
  }

  static void split(Block& b, ForStmt& loop, size_t i, size_t p, const std::vector<std::string>& flow,
                    const std::set<std::string>& used) {
    std::string var = loop_var(loop);
    std::set<std::string> taken = used;
    std::map<std::string, std::string> list_of;
    for (const auto& x : flow) {
      list_of[x] = fresh(x + "_tiles", taken);
      taken.insert(list_of[x]);
    }
    auto second = std::make_unique<ForStmt>(loop.span);
    second->target = clone(*loop.target);
    second->iter = clone(*loop.iter);
    for (size_t k = p; k < loop.body.size(); ++k) {
      StmtPtr st = std::move(loop.body[k]);
      for (const auto& x : flow) substitute(*st, x, *parse_expr(fmt::format("{}[{}]", list_of[x], var)));
      second->body.push_back(std::move(st));
    }
    loop.body.resize(p);
    for (const auto& x : flow) loop.body.push_back(parse_stmt(fmt::format("{}.append({})", list_of[x], x)));
    b.insert(b.begin() + static_cast<long>(i) + 1, std::move(second));
    for (const auto& x : flow) {
      StmtPtr init = parse_stmt(fmt::format("{} = []", list_of[x]));
      b.insert(b.begin() + static_cast<long>(i), std::move(init));
    }
  }
};

}  // namespace

std::unique_ptr<Transform> make_pipeline_prep() { return std::make_unique<PipelinePrep>(); }
std::unique_ptr<Transform> make_unroll_jam() { return std::make_unique<UnrollJam>(); }
std::unique_ptr<Transform> make_reorder_reuse() { return std::make_unique<ReorderReuse>(); }

}  // namespace agents::builtin
