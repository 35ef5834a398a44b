// Array privatization of hand multi-buffered storage on the form. An ISA-minded author rings a
// buffer by hand: declared once outside the loop with a slot dim in front of the partition dim,
// `sc_ring = nl.ndarray((NBUF, nl.par_dim(P), N), ...)`, each iteration of `for qt in
// nl.sequential_range(n)` filling and reading its slot `sc_ring[qt % NBUF]` (or a scratch ring
// indexed by an inner loop, `ps_ring[j % 2]`). Nothing flows between iterations, only the storage is
// reused; yet iteration qt and qt + NBUF touch the same slot, so the loop's iterations do not commute
// (iterations_commute) and neither affine_loop nor jam_rows applies: the loop runs in order.
// A kernel engineer declares the buffer per iteration instead and lets the compiler's allocator
// multi-buffer it:
//   sc_ring = nl.ndarray((NBUF, par_dim(P), N))          for qt in ...:
//   for qt in ...:                                =>      sc_ring = nl.ndarray((par_dim(P), N))
//     sc_ring[qt % NBUF, :, j*F:(j+1)*F] = ...              sc_ring[:, 512*j:512*j + 512] = ...
//     ... sc_ring[qt % NBUF] ...                             ... sc_ring ...
// Every such buffer of the loop is privatized at once (one ring left shared still orders it).
//
// Legal from the form when, for loop L and each buffer:
//   - an on-chip buffer (SBUF or PSUM, not a list of tiles), declared by one statement outside L in
//     a block enclosing L, no other statement naming it; its accesses inside L, or in other loops
//     M (a ragged tail's, a second phase's) that do not enclose L and whose iterations each write
//     before they read it (so no value flows into or out of L through it): each such M declares
//     its own copy, the author's statement again, in its innermost loop still private (the main
//     column loop when L is the tail's: `for t: for c:` then runs affine throughout);
//   - accesses before L in no loop (a tile used as a landing row first) when they too write before
//     they read: the author's declaration stays for them and L declares a copy (nothing after L);
//   - accesses in a helper's frozen body (a module-level helper given the tile, a closure naming
//     it) only when no slot dim drops: nothing is rewritten, the call passes the name (the closure
//     looks it up when called) and the new declaration binds it first;
//   - L's variable indexes it only through one block dim d (before the partition dim), at one point,
//     by one same expression in every access, of L and the loops around it only (`qt % 2`, `qt`):
//     each iteration touches one slot, the slot dim goes; or not at all (the buffer only moves
//     into L);
//   - privatizable (privatize.h, shared with expand_buffer): every read in an iteration reads what
//     the same iteration wrote before it; the value is dead after L (no access outside it);
//   - the site exists when L runs in order (a sequential_range, a legacy `range`) and its iterations
//     do not commute as written but do once every such buffer is private (the move's point: an
//     affine_range the compiler may already overlap gains nothing); a view binding of a buffer (`pT = pT_ring[s]`) goes with it
//     when nothing else prints it, else no site.
// Offered alone and, when affine_loop can rewrite L's header, with every loop the privatization
// frees then written affine_range (then=affine_range: L, the other loops, the loops around them
// that commute only now): privatizing alone changes no schedule, the loops still run in order.
// One site per privatization: the tail's loop and the main column loop declaring the same copies
// print the same kernel, offered once.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/nest_walk.h"
#include "loopnest/node_lookup.h"
#include "loopnest/privatize.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Candidate {
  int tensor = -1;
  int decl_node = -1;
  int dim = -1;  // the slot dim dropped; -1: none
  // The other loops using the buffer (a ragged tail's, a second phase's: outside L, each the
  // outermost loop around its accesses that does not enclose L), each to get its own declaration.
  std::vector<int> others;
  // Straight-line accesses before L (a tile used as a landing row before the loop) keep the author's
  // declaration where it is; L declares a copy of its own.
  bool kept = false;
};

// The other loops of candidate `c` (see Candidate::others): every access of the buffer outside L
// lies in a loop M that does not enclose L, below the declaration's loops, and M's iterations each
// write what they read of it before reading it (privatizable), so no value flows between L and M,
// or between M's iterations, through the buffer. `touching` gains M's operations. False when an
// access is not in such a loop (a straight-line read after L, a loop carrying a value).
bool other_loops(const Kernel& k, int t, const std::vector<int>& decl_loops, const std::vector<int>& l_loops,
                 int l_node, std::set<const Op*>& touching, std::vector<int>& others, bool& kept) {
  bool ok = true, passed = false;
  std::set<int> ms;
  std::set<const Op*> straight;  // accesses in no loop, before L
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& chain) {
    if (n.id == l_node) passed = true;
    for (const Op& op : n.ops) {
      if (touching.count(&op) || (op.dst && op.dst->tensor == t && is_declaration(op))) continue;
      bool touches = op.dst && storage_of(k, op.dst->tensor) == t;
      for (const Arg& a : op.args) touches = touches || (a.value.kind == Operand::Kind::Tile && storage_of(k, a.value.access.tensor) == t);
      if (!touches) continue;
      auto m = std::find_if(chain.begin(), chain.end(), [&](int x) { return !std::count(l_loops.begin(), l_loops.end(), x); });
      if (chain.empty() && decl_loops.empty() && !passed) {
        straight.insert(&op);
        continue;
      }
      if (m == chain.end() || decl_loops.size() > chain.size() || !std::equal(decl_loops.begin(), decl_loops.end(), chain.begin()))
        ok = false;
      else
        ms.insert(*m);
    }
  });
  if (!ok) return false;
  if (!straight.empty()) {
    // Before L, in no loop: written before read there too (a landing row for a broadcast), so no
    // value flows from them into L; after L nothing may touch it (the loop's copy would be the
    // name's binding there).
    std::vector<int> loops;
    std::vector<const Node*> conds;
    std::vector<Touch> all, before;
    if (!collect_touches(k, k.body, t, loops, conds, all, false)) return false;
    for (const Touch& x : all)
      if (straight.count(x.op)) before.push_back(x);
    if (!privatizable(k, before)) return false;
    touching.insert(straight.begin(), straight.end());
    kept = true;
  }
  // The buffer's accesses in loop node `mn` when they are private to its iterations.
  auto private_in = [&](const Node& mn, std::vector<Touch>& in_m) {
    std::vector<int> loops;
    std::vector<const Node*> conds;
    if (mn.frozen || !collect_touches(k, mn.body, t, loops, conds, in_m, true)) return false;
    for (const Touch& x : in_m)
      if (x.op->cls == OpClass::Alloc || x.access->tensor != t) return false;
    return privatizable(k, in_m);
  };
  for (int m : ms) {
    const Node* mn = loop_node(k, m);
    std::vector<Touch> in_m;
    if (!mn || !private_in(*mn, in_m)) return false;
    for (const Touch& x : in_m) touching.insert(x.op);
    // Declared where its tile lives: the innermost loop around every access of M still private
    // (`for t: for c: _tile(..., th, ...)` declares it per c, which frees t and c alike).
    std::vector<int> common = in_m.front().loops;
    for (const Touch& x : in_m) {
      size_t n = 0;
      while (n < common.size() && n < x.loops.size() && common[n] == x.loops[n]) ++n;
      common.resize(n);
    }
    for (auto it = common.rbegin(); it != common.rend(); ++it) {
      const Node* inner = loop_node(k, *it);
      std::vector<Touch> in_inner;
      if (inner && private_in(*inner, in_inner) && in_inner.size() == in_m.size()) {
        mn = inner;
        break;
      }
    }
    others.push_back(mn->id);
  }
  return true;
}

// The declaration of a buffer: how many statements declare it, the last one, and the helper call
// (a list comprehension) around it with how many operations that call holds.
struct Decl {
  int count = 0;
  const Node* node = nullptr;
  const Node* inline_node = nullptr;
  int inline_ops = 0;
};

void find_declaration(const std::vector<Node>& body, int t, const Node* in_inline, Decl& out) {
  for (const Node& n : body) {
    for (const Op& op : n.ops)
      if (op.dst && op.dst->tensor == t && is_declaration(op)) {
        ++out.count;
        out.node = &n;
        out.inline_node = in_inline;
        out.inline_ops = 0;
        if (in_inline)
          for_each_node(in_inline->body, [&](const Node& x, const std::vector<int>&) { out.inline_ops += int(x.ops.size()); });
      }
    find_declaration(n.body, t, n.kind == NodeKind::Inline ? &n : in_inline, out);
    find_declaration(n.orelse, t, n.kind == NodeKind::Inline ? &n : in_inline, out);
  }
}

std::optional<Candidate> candidate(const Kernel& k, const Node& ln, int t) {
  const Tensor& tensor = k.tensor(t);
  if (tensor.role != TensorRole::Buffer || !tensor.on_chip() || tensor.base >= 0 || tensor.list_loop >= 0 ||
      tensor.bound_items)
    return std::nullopt;
  if (std::count(k.outputs.begin(), k.outputs.end(), t)) return std::nullopt;
  for (const Tensor& o : k.tensors)
    if (o.id != t && storage_of(k, o.id) == t) return std::nullopt;  // a view tensor aliases it
  const int L = ln.loop;
  std::set<int> inside = loops_within(ln);
  if (inside.count(tensor.scope_loop)) return std::nullopt;
  // The one declaration: a statement of its own (a list's: the comprehension making it, holding
  // nothing else), in a block enclosing L, not in a helper's body.
  Decl decl;
  find_declaration(k.body, t, nullptr, decl);
  // (A comprehension's body is frozen as a helper's is: the move replaces or moves it whole.)
  if (decl.count != 1 || !decl.node || (!tensor.host_list && decl.node->frozen)) return std::nullopt;
  if (tensor.host_list ? !decl.inline_node || decl.inline_ops != 1 : decl.inline_node != nullptr) return std::nullopt;
  const Node* owner = tensor.host_list ? decl.inline_node : decl.node;
  if (owner->kind != NodeKind::Inline && (owner->kind != NodeKind::Stmt || owner->ops.size() != 1)) return std::nullopt;
  std::vector<int> decl_loops = loops_around(k, owner->id), l_loops = loops_around(k, ln.id);
  if (decl_loops.size() > l_loops.size() || !std::equal(decl_loops.begin(), decl_loops.end(), l_loops.begin()))
    return std::nullopt;
  std::set<std::string> view_names;
  bool stray = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == t) {
      if (n.binds.size() != 1) stray = true;
      else view_names.insert(n.binds[0]);
    }
  });
  if (stray) return std::nullopt;
  // Every access but the declaration lies in L; view bindings of it too.
  std::vector<int> loops;
  std::vector<const Node*> conds;
  std::vector<Touch> within;
  if (!collect_touches(k, ln.body, t, loops, conds, within, true)) return std::nullopt;
  std::set<const Op*> touching;
  for (const Touch& x : within) touching.insert(x.op);
  if (within.empty()) return std::nullopt;
  Candidate c{t, owner->id, -1, {}};
  std::vector<int> l_inner = l_loops;
  l_inner.push_back(L);
  if (!other_loops(k, t, decl_loops, l_inner, ln.id, touching, c.others, c.kept)) return std::nullopt;
  if (c.kept && !view_names.empty()) return std::nullopt;
  int views_inside = 0;
  for_each_node(ln.body, [&](const Node& n, const std::vector<int>&) {
    views_inside += n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == t;
  });
  if (views_inside != static_cast<int>(view_names.size())) return std::nullopt;
  // The slot dim: L's variable in one block dim, one expression everywhere, nowhere else.
  std::optional<IExpr> slot;
  for (const Touch& x : within) {
    if (x.op->cls == OpClass::Alloc || x.access->tensor != t) return std::nullopt;
    if (x.operand && x.operand->number_when && x.operand->number_when->uses(L)) return std::nullopt;
    for (size_t d = 0; d < x.access->dims.size(); ++d) {
      // Only an index names a slot: a ragged extent (`tw[0:nr, :]`, nr = min(P, M - r0), the last
      // row block cut) is the same storage in every iteration, printed unchanged.
      if (!x.access->dims[d].start.uses(L)) continue;
      if (static_cast<int>(d) >= tensor.partition_dim || !x.access->dims[d].terms.empty() ||
          (c.dim >= 0 && c.dim != static_cast<int>(d)))
        return std::nullopt;
      c.dim = static_cast<int>(d);
      slot = x.access->dims[d].start;
    }
  }
  // The slot is fixed for an iteration of L: its expression names L and the loops around L only
  // (`(qt + j) % 2` would be several slots of one iteration, which one tile cannot hold).
  if (slot)
    for (int v : slot->vars())
      if (v != L && std::find(l_loops.begin(), l_loops.end(), v) == l_loops.end()) return std::nullopt;
  if (c.dim >= 0)
    for (const Touch& x : within) {
      const DimIndex& di = x.access->dims[static_cast<size_t>(c.dim)];
      if (!di.terms.empty() || di.start != *slot) return std::nullopt;  // another slot: a value may flow
    }
  // A helper's body prints as written, so only a move rewriting no access may reach into one; a
  // buffer other loops use keeps its shape (one declaration per loop, the accesses unchanged).
  bool in_helper = std::any_of(within.begin(), within.end(), [](const Touch& x) { return x.in_helper; });
  if (c.dim >= 0 && (in_helper || !c.others.empty() || c.kept)) return std::nullopt;
  if ((!c.others.empty() || c.kept) && owner->kind != NodeKind::Stmt) return std::nullopt;
  if (!std::any_of(within.begin(), within.end(), [](const Touch& x) { return !x.write; })) return std::nullopt;
  if (!privatizable(k, within)) return std::nullopt;
  // No statement outside the touching ones names it (`ring.shape`), nor the names of its views. A
  // helper's call in L or another loop passes the name (`_tile(x, th, r0)`), and the helper's body
  // names its own parameter (or, a closure, the buffer it looks up when called, which the new
  // declaration at the top of the loop binds first): both print unchanged when no dim drops.
  std::set<int> calls;
  if (c.dim < 0) {
    std::vector<int> loop_ids{ln.id};
    loop_ids.insert(loop_ids.end(), c.others.begin(), c.others.end());
    for (int id : loop_ids)
      for_each_node(find_node(k.body, id)->body, [&](const Node& n, const std::vector<int>&) {
        if (n.kind == NodeKind::Inline || n.frozen) calls.insert(n.id);
      });
  }
  bool named = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Loop || n.kind == NodeKind::If || n.id == owner->id || n.id == decl.node->id) return;
    if (calls.count(n.id)) return;
    if (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == t) return;
    bool touches = std::any_of(n.ops.begin(), n.ops.end(), [&](const Op& op) { return touching.count(&op) > 0; });
    if (!touches && mentions(k, n, tensor.name)) named = true;
  });
  if (named) return std::nullopt;
  return c;
}

// Every buffer of loop node `id` to privatize (declaration order).
std::vector<Candidate> candidates(Kernel& k, int id) {
  std::vector<Candidate> out;
  const Node* ln = find_node(k, id);
  if (!ln || ln->kind != NodeKind::Loop || ln->frozen) return out;
  for (const Tensor& t : k.tensors)
    if (auto c = candidate(k, *ln, t.id)) out.push_back(*c);
  return out;
}

// Puts declaration `decl` at the top of loop node `owner`'s body, after the declarations there.
void declare_first(Node& owner, Node decl) {
  auto at = owner.body.begin();
  while (at != owner.body.end() && at->kind == NodeKind::Stmt && at->ops.size() == 1 && is_declaration(at->ops[0])) ++at;
  owner.body.insert(at, std::move(decl));
}

// Loop node `m_id` declares its own copy of buffer `t`, the author's statement `authored` again (a
// tensor of its own: its tiles live in that loop's iterations); its accesses print unchanged.
void declare_copy(Kernel& k, int t, const Node& authored, int m_id) {
  Tensor copy = k.tensor(t);
  copy.scope_loop = find_node(k, m_id)->loop;
  const int t2 = add_tensor(k, copy);
  auto retarget = [&](Op& op) {
    if (op.dst && op.dst->tensor == t) op.dst->tensor = t2;
    for (Arg& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) a.value.access.tensor = t2;
  };
  Node* mn = find_node(k, m_id);
  for_each_node(mn->body, [&](Node& x, const std::vector<int>&) {
    for (Op& op : x.ops) retarget(op);
  });
  Node again = authored;
  again.id = k.next_node++;
  again.repeat_copy = true;
  again.patch.clear();
  for (Op& op : again.ops) retarget(op);
  declare_first(*mn, std::move(again));
}

// Declares buffer `c` at the top of loop node `id` (after the declarations already there), its slot
// dim dropped; its accesses print from the form, view bindings nothing prints any more go; each
// other loop of `c` declares a copy.
void privatize(Kernel& k, int id, const Candidate& c) {
  if (c.kept) {  // the author's declaration stays for the accesses before L; L and the others copy it
    const Node authored = *find_node(k, c.decl_node);
    declare_copy(k, c.tensor, authored, id);
    for (int m_id : c.others) declare_copy(k, c.tensor, authored, m_id);
    return;
  }
  Node* ln = find_node(k, id);
  const int L = ln->loop;
  std::set<std::string> views;
  for_each_node(ln->body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == c.tensor) views.insert(n.binds[0]);
  });
  if (c.dim >= 0) {
    // The kept dims print as the author wrote them (`nl.par_dim(P)`, `N`).
    std::vector<std::string> text;
    std::vector<Op*> decl_ops;
    ops_of(*find_node(k, c.decl_node), decl_ops);
    for (const Op* op : decl_ops)
      if (const Arg* shape = op->arg("shape"); shape && shape->value.kind == Operand::Kind::Shape && op->dst &&
                                                op->dst->tensor == c.tensor)
        text = authored_dims(k, shape->value, k.tensor(c.tensor));
    drop_block_dim(k, c.tensor, c.dim);
    Tensor& t = k.tensor(c.tensor);
    if (text.size() == t.shape.size() + 1) {
      text.erase(text.begin() + c.dim);
      t.dim_text.assign(t.shape.size(), {IExpr(), ""});
      for (size_t d = 0; d < text.size(); ++d)
        if (!text[d].empty()) t.dim_text[d] = {t.shape[d], text[d]};
    }
  } else if (!views.empty())  // the reads through a view print from the form, so the binding may go
    for_each_node(ln->body, [&](Node& n, const std::vector<int>&) {
      for (Op& op : n.ops) {
        if (op.dst && op.dst->tensor == c.tensor) op.dst_origin = nullptr, n.dirty = true;
        for (Arg& a : op.args)
          if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == c.tensor) a.value.origin = nullptr, n.dirty = true;
      }
    });
  ln = find_node(k, id);
  drop_unread_bindings(k, *ln, views);
  bool left = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    left = left || (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == c.tensor);
  });
  if (left) throw TransformError("privatize_buffer: a view of the buffer is still printed");
  Tensor& t = k.tensor(c.tensor);
  t.scope_loop = L;
  Node decl = *find_node(k, c.decl_node);
  erase_node(k, c.decl_node);
  decl.patch.clear();
  if (c.dim >= 0) decl.dirty = true;
  if (t.host_list && c.dim == 0) {  // the list of slots becomes the one tile it held
    t.host_list = false;
    t.list_name.clear();
    decl = declaration_node(k, c.tensor);
  }
  Node authored = decl;
  declare_first(*find_node(k, id), std::move(decl));
  for (int m_id : c.others) declare_copy(k, c.tensor, authored, m_id);
}

// Privatizes every buffer of loop node `id`; the node ids of the other loops given a declaration.
std::set<int> privatize_all(Kernel& k, int id) {
  std::set<int> others;
  for (auto cs = candidates(k, id); !cs.empty(); cs = candidates(k, id)) {
    others.insert(cs.front().others.begin(), cs.front().others.end());
    privatize(k, id, cs.front());
  }
  return others;
}

// The loops the privatization frees (`after` is `before` privatized at loop node `id`, `others` the
// other loops declaring a copy): L, those others, and the loops around them, run in order, whose
// iterations did not commute before and do after; L first. Loop node ids.
std::vector<int> freed_loops(const Kernel& before, const Kernel& after, int id, const std::set<int>& others) {
  std::vector<int> out{id};
  std::vector<int> seeds{id};
  seeds.insert(seeds.end(), others.begin(), others.end());
  for (int seed : seeds) {
    std::vector<int> loops = loops_around(before, seed);
    if (seed != id) loops.push_back(find_node(before.body, seed)->loop);
    for (int loop : loops) {
      const Node* n = loop_node(before, loop);
      const Loop& l = before.loops.at(loop);
      if (!n || std::count(out.begin(), out.end(), n->id) || !runs_in_order(before, l) || l.ordered ||
          iterations_commute(before, loop) || !iterations_commute(after, loop))
        continue;
      out.push_back(n->id);
    }
  }
  return out;
}

// Writes loop nodes `ids` affine_range (each one, else TransformError).
void write_all_affine(Kernel& k, const std::vector<int>& ids) {
  for (int id : ids)
    if (!write_affine(k, id)) throw TransformError("privatize_buffer: a freed loop cannot be written affine_range");
}

std::string names(const Kernel& k, const std::vector<Candidate>& cs) {
  std::string out;
  for (const Candidate& c : cs) out += (out.empty() ? "`" : ", `") + k.tensor(c.tensor).name + "`";
  return out;
}

class PrivatizeBuffer : public Transform {
 public:
  std::string name() const override { return "privatize_buffer"; }
  std::string description() const override {
    return "declare the on-chip buffers a loop's iterations reuse but never pass values through (a hand-written "
           "ring `buf[i % NBUF]`) inside the loop, one tile per iteration, so its iterations commute and the "
           "compiler may overlap them (allocating the copies itself)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    // A buffer a main loop and its tail share is declared in both whichever of them the site is
    // on: one site per such privatization (each buffer with the loops it is declared in), the first.
    std::set<std::set<std::pair<int, int>>> offered;
    for (int id : open_loop_ids(k)) {
      const Node* ln = find_node(k, id);
      if (!ln) continue;
      const int L = ln->loop;
      const Loop& l = k.loops.at(L);
      if (!runs_in_order(k, l) || l.ordered || iterations_commute(k, L)) continue;
      std::vector<Candidate> cs = candidates(k, id);
      if (cs.empty()) continue;
      std::set<std::pair<int, int>> declared;
      for (const Candidate& c : cs) {
        declared.insert({c.tensor, id});
        for (int m : c.others) declared.insert({c.tensor, m});
      }
      if (!offered.insert(declared).second) continue;
      Kernel trial = k;
      std::vector<int> freed;
      try {
        std::set<int> others = privatize_all(trial, id);
        if (!iterations_commute(trial, L)) continue;
        freed = freed_loops(k, trial, id, others);
        write_all_affine(trial, freed);
      } catch (const TransformError&) {
        if (freed.empty()) continue;
        freed.clear();  // privatized, but not every freed loop can be written affine_range
      }
      std::string loops;
      for (size_t i = 0; i < freed.size(); ++i)
        loops += fmt::format("{}`for {}`", i == 0 ? "" : i + 1 == freed.size() ? " and " : ", ",
                             k.loops.at(find_node(k, freed[i])->loop).var);
      Analysis an(k);
      std::set<int> others;
      for (const Candidate& c : cs) others.insert(c.others.begin(), c.others.end());
      std::string also;
      for (int m : others) {
        const Node* mn = find_node(k, m);
        also += fmt::format(" and `for {}`{}", k.loops.at(mn->loop).var,
                            mn->origin ? fmt::format(" (line {})", mn->origin->span.line) : "");
      }
      std::string what = fmt::format("declare {} inside `for {}`{}, one per iteration{}", names(k, cs), l.var, also,
                                     std::any_of(cs.begin(), cs.end(), [](const Candidate& c) { return c.dim >= 0; })
                                         ? " (the ring's slot dim dropped)"
                                         : "");
      std::optional<Site> s = make_loop_site(k, an, *ln, what + ": its iterations then touch nothing another writes",
                                             {{"buffers", std::to_string(cs.size())}});
      if (!s) continue;
      if (sink(*s, [&k, id] { privatize_all(k, id); })) return true;
      if (freed.empty()) continue;
      Site both = *s;
      both.params["then"] = "affine_range";
      both.summary = what + ", and write " + loops + " affine_range: their iterations may then overlap";
      if (sink(both, [&k, id, freed] {
            privatize_all(k, id);
            write_all_affine(k, freed);
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_privatize_buffer() { return std::make_unique<PrivatizeBuffer>(); }

}  // namespace loopnest
