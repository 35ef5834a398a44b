// Hoisting on the form: a statement (or a whole loop, such as one loading a weight's tiles) in a
// loop's body that computes the same thing in every iteration moves before the loop: it runs once
// instead of once per iteration (weights re-loaded per row tile, a constant broadcast re-made).
// Legal when nothing it reads is written inside the loop, it does not use the loop's variable,
// nothing in the loop reads what it writes before it (on the first iteration that would see the
// value from before the loop), and it is pure (a load, an instruction or a declaration: no store,
// no accumulation).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool pure(const Op& op) {
  if (op.accumulate) return false;
  switch (op.cls) {
    case OpClass::Store: case OpClass::DmaCopy: case OpClass::Scan: case OpClass::Other: return false;
    default: return true;
  }
}

// The dim of `a` indexed by exactly the loop variable of `l` (a block dim), if that is its only use.
std::optional<int> block_dim(const Kernel& k, const Access& a, int l) {
  std::optional<int> dim;
  if (size_uses_loop(a, l)) return std::nullopt;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (!a.dims[d].start.uses(l)) continue;
    if (dim || !(a.dims[d].start == IExpr::var(l)) || !a.dims[d].terms.empty()) return std::nullopt;
    dim = static_cast<int>(d);
  }
  const Tensor& t = k.tensor(storage_of(k, a.tensor));
  if (!dim || t.role != TensorRole::Buffer || *dim >= t.partition_dim) return std::nullopt;
  return dim;
}

// Every access of buffer `t` (but its declaration) is in `loop` and indexes `dim` by its variable.
bool only_block_accesses(Kernel& k, Node& loop, int t, int dim, int l) {
  bool inside_ok = true;
  int inside_count = 0, total = 0;
  auto check = [&](const Access& a, bool in_loop) {
    if (storage_of(k, a.tensor) != t) return;
    ++total;
    if (!in_loop) return;
    ++inside_count;
    auto d = block_dim(k, a, l);
    inside_ok = inside_ok && d && *d == dim;
  };
  std::vector<Op*> in;
  ops_of(loop, in);
  std::set<const Op*> in_set(in.begin(), in.end());
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (is_declaration(op)) continue;
      for (const Access* a : reads(op)) check(*a, in_set.count(&op));
      for (const Access* a : writes(op)) check(*a, in_set.count(&op));
    }
  });
  return inside_ok && inside_count == total;
}

// Every access of buffer `t` reads and writes block 0 of `dim` instead of the loop's block.
void share_block(Kernel& k, int t, int dim, int l) {
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      auto fix = [&](Access& a, const nki::Expr** origin) {
        if (storage_of(k, a.tensor) != t || a.dims.size() <= static_cast<size_t>(dim)) return;
        if (!(a.dims[static_cast<size_t>(dim)].start == IExpr::var(l))) return;
        a.dims[static_cast<size_t>(dim)].start = IExpr(0);
        if (origin) *origin = nullptr;
        n.dirty = true;
      };
      if (op.dst && !is_declaration(op)) fix(*op.dst, &op.dst_origin);
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) fix(a.value.access, &a.value.origin);
    }
  });
}

// The moved operations `moved` bind a name the loop binds again: printed before the loop, the name
// would stop meaning their tensor somewhere the form reads it. The form holds each binding of a
// Python name as its own tensor (`wt` and `wt#2`), the printer prints both as `wt`: a loop whose
// body loads `wt` for the full blocks and again for the tail (or reads a `wt` bound before the loop)
// reads the hoisted `wt` in the tail, or the tail's in the next iteration's full blocks, once it is
// printed before the loop. So the names of the tensors they define (a result `wt = nl.load(...)`, a
// declaration `wt = nl.ndarray(...)` moving with it, a buffer written into) must name nothing else
// the loop's operations access, and no binding nor loop variable in it. (The print-back check
// refused such a site after the agent drew it.)
bool rebinds_in_loop(const Kernel& k, Node& loop, const std::set<const Op*>& moved) {
  std::set<int> defined;
  for (const Op* op : moved) {
    for (const Access* w : writes(*op)) defined.insert(storage_of(k, w->tensor));
    if (is_declaration(*op) && op->dst) defined.insert(storage_of(k, op->dst->tensor));
    if (op->result >= 0) defined.insert(storage_of(k, op->result));
  }
  std::set<std::string> names;
  for (int t : defined)
    if (!k.tensor(t).name.empty()) names.insert(k.tensor(t).name);
  if (names.empty()) return false;
  auto other = [&](int t) {
    if (defined.count(t) || defined.count(storage_of(k, t))) return false;
    return names.count(k.tensor(t).name) > 0 || names.count(k.tensor(storage_of(k, t)).name) > 0;
  };
  bool clash = false;
  for_each_node(loop.body, [&](Node& n, const std::vector<int>&) {
    bool own = std::any_of(n.ops.begin(), n.ops.end(), [&](const Op& op) { return moved.count(&op) > 0; });
    for (const auto& b : n.binds) clash = clash || (!own && names.count(b));
    if (n.kind == NodeKind::Loop) clash = clash || names.count(k.loops.at(n.loop).var);
    for (const Op& op : n.ops) {
      if (moved.count(&op)) continue;
      for (const Access* a : reads(op)) clash = clash || other(a->tensor);
      for (const Access* a : writes(op)) clash = clash || other(a->tensor);
      if (op.dst) clash = clash || other(op.dst->tensor);
      if (op.result >= 0) clash = clash || other(op.result);
    }
  });
  return clash;
}

// The statements of loop node `id`'s body that compute the same thing in every iteration and may
// move before it (the rule above), in body order: each with the declarations that move with it and
// the per-iteration blocks it writes that become one shared block.
struct Candidate {
  int stmt = -1;
  std::vector<int> decls;
  std::map<int, int> shared_blocks;
  std::set<const Op*> own;
  std::string what;  // "loop" or "statement"
  std::string kind;  // for the summary
};
std::vector<Candidate> candidates(Kernel& k, int id) {
  std::vector<Candidate> out;
  Ranges ranges = k.ranges();
  Node* loop = find_node(k, id);
  if (!loop) return out;
  int l = loop->loop;
  // Everything the loop writes (storage), with where in its body.
  std::vector<Op*> all;
  ops_of(*loop, all);
  // A statement under a transparent block (nest_walk.h) is one of the body's: the block always runs.
  std::vector<Node*> body = body_through_blocks(*loop);
  for (size_t i = 0; i < body.size(); ++i) {
    Node& s = *body[i];
    if (s.frozen || (s.kind != NodeKind::Stmt && s.kind != NodeKind::Loop)) continue;
    std::vector<Op*> mine;
    ops_of(s, mine);
    if (mine.empty()) continue;
    bool ok = true;
    bool work = false;  // a declaration alone moves nothing (tiles are allocated where used)
    // A per-iteration block it writes (`v11[i0, k, ...]` in the published style: a buffer
    // whose every access indexes one dim by the loop variable) becomes one shared block.
    std::map<int, int> shared_blocks;
    for (Op* op : mine) {
      Op probe = *op;
      probe.dst.reset();
      for (auto& a : probe.args)
        if (a.output) a.value.kind = Operand::Kind::Other;
      ok = ok && pure(*op) && !uses_loop(probe, l);
      work = work || !is_declaration(*op);
      for (const Access* w : writes(*op)) {
        if (!uses_loop(*w, l)) continue;
        auto dim = block_dim(k, *w, l);
        if (!dim) ok = false;
        else shared_blocks[storage_of(k, w->tensor)] = *dim;
      }
    }
    if (!work || !ok) continue;
    // Its text naming a binding of the loop's body (`cols = nl.ds(blk * W, W)` before it), which
    // is not bound before the loop, even where the binding does not use the loop's variable.
    // But a binding of a decided guard it leaves that is copied before the loop with it
    // (nest_walk.h guard_bindings: `c0 = NT * NB` under `if rem > 0:`).
    std::set<std::string> named;
    for (size_t j = 0; j < i; ++j)
      if (body[j]->kind == NodeKind::Meta)
        for (const std::string& name : body[j]->binds)
          if (mentions(k, s, name)) named.insert(name);
    if (!named.empty())
      for (const Node& b : guard_bindings(k, blocks_between(*loop, s.id), s.id, names_local_to(k, *loop, {})))
        for (const auto& name : b.binds) named.erase(name);
    ok = named.empty();
    if (!ok) continue;
    for (const auto& [t, dim] : shared_blocks) ok = ok && only_block_accesses(k, *loop, t, dim, l);
    // A buffer it fills that is declared in the loop moves with it.
    std::vector<int> decls;
    if (!ok) continue;
    // Nothing else in the loop writes what it reads; nothing before it in the body reads what
    // it writes; it does not write what it reads in place.
    std::set<const Op*> own(mine.begin(), mine.end());
    for (Op* op : mine) {
      for (const Access* r : reads(*op)) {
        for (Op* other : all)
          if (!own.count(other))
            for (const Access* w : writes(*other)) ok = ok && !may_overlap_across(k, *w, *r, ranges);
        // `acc = acc + b` every iteration (a value the loop carries): run once, it adds b once.
        for (const Access* w : writes(*op)) ok = ok && !may_overlap_across(k, *w, *r, ranges);
      }
      for (const Access* w : writes(*op)) {
        // Nothing else in the loop writes it (an accumulator zeroed per iteration stays).
        for (Op* other : all)
          if (!own.count(other))
            for (const Access* w2 : writes(*other)) ok = ok && !may_overlap_across(k, *w, *w2, ranges);
        for (size_t j = 0; j < i && ok; ++j) {
          std::vector<Op*> before;
          ops_of(*body[j], before);
          for (Op* b : before)
            for (const Access* r : reads(*b)) ok = ok && !may_overlap_across(k, *w, *r, ranges);
        }
        // A buffer declared in the loop (per iteration) moves with its declaration: a
        // statement of the loop's body before this one that only declares it.
        const Tensor& t = k.tensor(storage_of(k, w->tensor));
        if (t.scope_loop != l || t.role != TensorRole::Buffer) continue;
        bool found = false;
        for (size_t j = 0; j < i; ++j) {
          Node& d = *body[j];
          if (d.kind == NodeKind::Stmt && d.ops.size() == 1 && is_declaration(d.ops[0]) && d.ops[0].dst &&
              d.ops[0].dst->tensor == t.id && reads(d.ops[0]).empty()) {
            found = true;
            if (std::find(decls.begin(), decls.end(), d.id) == decls.end()) decls.push_back(d.id);
          }
        }
        ok = ok && found;
      }
    }
    if (!ok) continue;
    std::set<const Op*> moved = own;
    for (int d : decls)
      for (const Op& op : find_node(k, d)->ops) moved.insert(&op);
    if (rebinds_in_loop(k, *loop, moved)) continue;
    out.push_back({s.id, decls, shared_blocks, own, s.kind == NodeKind::Loop ? "loop" : "statement",
                   s.kind == NodeKind::Loop ? "the loop " + k.loops.at(s.loop).var : op_kind(*mine.back())});
  }
  return out;
}

class Hoist : public Transform {
 public:
  std::string name() const override { return "hoist"; }
  std::string description() const override {
    return "move a statement or loop that computes the same thing in every iteration (a weight load, a constant "
           "tile) before its loop: it runs once instead of once per iteration";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      std::vector<Candidate> found = candidates(k, id);
      for (size_t n = 0; n < found.size(); ++n) {
        const Candidate& c = found[n];
        Analysis an(k);
        const OpRef* anchor = nullptr;
        for (const auto& r : an.ops)
          if (c.own.count(&r.op())) {
            anchor = &r;
            break;
          }
        if (!anchor) continue;
        const int l = find_node(k, id)->loop;
        Site site = make_site(k, an, *anchor,
                              fmt::format("move `{}` before `for {}`: it is the same in every iteration", c.kind,
                                          k.loops.at(l).var),
                              {{"what", c.what}});
        note_relief(k, an, c.own, site);
        if (sink(site, [&k, id, c] { move(k, id, c); })) return true;
        // Everything invariant in the loop, moved one statement after another (each making the next
        // one's operands invariant: a norm's statistics, then the scaled rows, then their transposes,
        // recomputed per output column tile by generated code): one site, `all=N` statements.
        if (n != 0) continue;
        Kernel trial = k;
        const int all = move_all(trial, id);
        if (all < 2) continue;
        Site every = site;
        every.params["all"] = std::to_string(all);
        every.summary = fmt::format("move the {} statements that are the same in every iteration of `for {}` before it, "
                                    "one after another (each making the next one's operands invariant)",
                                    all, k.loops.at(l).var);
        if (sink(every, [&k, id, all] {
              if (move_all(k, id) != all) throw TransformError("hoist: the statements to move changed");
            }))
          return true;
      }
    }
    return false;
  }

 private:
  static void move(Kernel& k, int loop_id, const Candidate& c) {
    for (const auto& [t, dim] : c.shared_blocks) share_block(k, t, dim, find_node(k, loop_id)->loop);
    for (int d : c.decls) apply(k, loop_id, d);
    apply(k, loop_id, c.stmt);
  }
  // Moves the loop's invariant statements one at a time (the first in body order each time, the
  // analysis redone on what the last move made) until none is left; how many.
  static int move_all(Kernel& k, int loop_id) {
    int moved = 0;
    for (; moved < 64; ++moved) {
      std::vector<Candidate> found = candidates(k, loop_id);
      if (found.empty()) break;
      move(k, loop_id, found.front());
    }
    return moved;
  }
  static std::vector<Node>* parent_of(std::vector<Node>& block, int id) {
    for (auto& n : block) {
      if (n.id == id) return &block;
      if (auto* p = parent_of(n.body, id)) return p;
      if (auto* p = parent_of(n.orelse, id)) return p;
    }
    return nullptr;
  }

  static void apply(Kernel& k, int loop_id, int stmt_id) {
    Node* loop = find_node(k, loop_id);
    int l = loop->loop;
    // In the loop's body or a transparent block's there (the block stays, `pass` if emptied).
    std::vector<Node>* from = parent_of(loop->body, stmt_id);
    auto it = std::find_if(from->begin(), from->end(), [&](const Node& n) { return n.id == stmt_id; });
    // Out of a decided guard: printed before the loop under the guard's condition (nest_walk.h).
    const std::vector<const Node*> blocks = blocks_between(*loop, stmt_id);
    const std::set<std::string> local = names_local_to(k, *loop, {});
    std::vector<Node> guards = guard_copies(k, blocks, local);
    // With the guards' bindings it names (candidates() let it name them).
    std::vector<Node> placed = named_guard_bindings(k, blocks, *it, local);
    Node moved = std::move(*it);
    from->erase(it);
    if (loop->body.empty()) {
      Node pass;
      pass.kind = NodeKind::Meta;
      pass.meta = MetaKind::Pass;
      pass.id = k.next_node++;
      pass.dirty = true;
      pass.patch = "pass";
      loop->body.push_back(std::move(pass));
    }
    // Tiles it defines now live in the loop around `l` (or the kernel).
    int outer = -1;
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (n.id == loop_id) outer = loops.empty() ? -1 : loops.back();
    });
    std::vector<Op*> ops;
    ops_of(moved, ops);
    for (Op* op : ops) {
      for (const Access* w : writes(*op))
        if (k.tensor(w->tensor).scope_loop == l) k.tensor(w->tensor).scope_loop = outer;
      if (is_declaration(*op) && op->dst && k.tensor(op->dst->tensor).scope_loop == l)
        k.tensor(op->dst->tensor).scope_loop = outer;
    }
    placed.push_back(std::move(moved));
    placed = under_copies(std::move(placed), std::move(guards));
    std::vector<Node>* parent = parent_of(k.body, loop_id);
    auto pos = std::find_if(parent->begin(), parent->end(), [&](const Node& n) { return n.id == loop_id; });
    insert_merged(*parent, static_cast<size_t>(pos - parent->begin()), std::move(placed));
  }
};

}  // namespace

std::unique_ptr<Transform> make_hoist() { return std::make_unique<Hoist>(); }

}  // namespace loopnest
