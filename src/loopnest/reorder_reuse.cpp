// Reuse across a column-block loop on the form: in `for n: A(n); for m: P(m); R(n, m)`, where P
// prepares a per-row operand (loads and transposes lhs row m) that does not depend on n, P runs
// once per (n, m) although its result is the same for every n. Making m the outer loop,
// `for m: P(m); for n: A(n); R(n, m)`, prepares each row once; A (the column block's load) now
// runs per row, so the move is offered blocked by 1, 2 or 4 rows (jam_rows on m: A shared by the
// rows of a block). A kernel engineer's imperfect interchange with unroll-and-jam.
//
// Legality from dependences on the form, whatever the style: both loops affine (iterations
// independent); P is the longest prefix of m's body that does not use n, reads nothing A writes,
// and whose tiles the rest R neither writes nor makes P read (P's result must stay valid for every
// n); A writes no HBM, accumulates nothing, reads nothing P or R writes and writes nothing they
// write (it is now run again per row); P must hold a loop and feed R. A buffer declared up front
// with one block per n (`v9[i0, i2, ...]`, the published style) that only P writes loses that
// block dim: P's one result serves every n.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/nest_walk.h"
#include "loopnest/node_lookup.h"
#include "loopnest/privatize.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

std::vector<Op*> ops_of(std::vector<Node>& nodes, size_t from, size_t to) {
  std::vector<Op*> out;
  for (size_t i = from; i < to; ++i) ops_of(nodes[i], out);
  return out;
}

struct Plan {
  int outer = -1, inner = -1;  // node ids of the n loop and the innermost loop of the m nest
  std::vector<int> chain;      // node ids of the m nest (a perfect nest `for m: for m2: ...`), outermost first
  size_t a_size = 0;           // nodes of n's body before the m loop
  size_t pre_size = 0;         // nodes of m's body that move out of n
  std::map<int, int> dropped;  // buffer -> block dim indexed by n that goes away
};

// Storage ids the ops write / read (non-declaration writes; every read).
std::set<int> written(const Kernel& k, const std::vector<Op*>& ops) {
  std::set<int> out;
  for (const Op* op : ops) {
    if (is_declaration(*op)) continue;
    for (const Access* w : writes(*op)) out.insert(storage_of(k, w->tensor));
  }
  return out;
}
// The same with declarations: a prefix node declaring (and zeroing) what the rest accumulates into
// must not leave it either.
std::set<int> written_or_declared(const Kernel& k, const std::vector<Op*>& ops) {
  std::set<int> out;
  for (const Op* op : ops) {
    for (const Access* w : writes(*op)) out.insert(storage_of(k, w->tensor));
    if (op->dst && is_declaration(*op)) out.insert(storage_of(k, op->dst->tensor));
  }
  return out;
}
std::set<int> read(const Kernel& k, const std::vector<Op*>& ops) {
  std::set<int> out;
  for (const Op* op : ops)
    for (const Access* r : reads(*op)) out.insert(storage_of(k, r->tensor));
  return out;
}
bool meets(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return true;
  return false;
}

// Whether node `x` (of m's body) can leave the n loop: n appears only as the block index of
// on-chip buffers declared outside n (collected in `blocks`: buffer -> dim), never in loop bounds,
// conditions or masks.
bool free_of(const Kernel& k, Node& x, int n, const std::set<int>& inside_n, std::map<int, int>& blocks) {
  bool ok = true;
  std::function<void(Node&)> walk = [&](Node& y) {
    if (y.frozen || y.kind == NodeKind::Inline) ok = false;
    if (y.kind == NodeKind::Meta && y.meta != MetaKind::Docstring && y.meta != MetaKind::Pass) ok = false;
    if (y.kind == NodeKind::If && (y.cond_l.uses(n) || y.cond_r.uses(n))) ok = false;
    if (y.kind == NodeKind::Loop) {
      const Loop& l = k.loops.at(y.loop);
      if (l.start.uses(n) || l.stop.uses(n)) ok = false;
    }
    for (auto& op : y.ops) {
      if (mask_uses(op, n) || index_operand_uses(op, n)) ok = false;
      auto check = [&](const Access& a) {
        for (size_t d = 0; d < a.dims.size(); ++d) {
          const DimIndex& di = a.dims[d];
          for (const auto& t : di.terms)
            if (t.size.uses(n)) ok = false;
          if (!di.start.uses(n)) continue;
          const Tensor& t = k.tensor(a.tensor);
          bool block = t.on_chip() && t.role == TensorRole::Buffer && t.base < 0 && static_cast<int>(d) < t.partition_dim &&
                       !inside_n.count(t.scope_loop) && di.start == IExpr::var(n) && di.terms.empty();
          auto at = blocks.find(a.tensor);
          if (!block || (at != blocks.end() && at->second != static_cast<int>(d))) ok = false;
          else blocks[a.tensor] = static_cast<int>(d);
        }
      };
      if (op.dst) check(*op.dst);
      for (const auto& arg : op.args)
        if (arg.value.kind == Operand::Kind::Tile) check(arg.value.access);
    }
    for (auto& b : y.body) walk(b);
    for (auto& b : y.orelse) walk(b);
  };
  walk(x);
  return ok;
}

bool holds_loop(const std::vector<Node>& nodes, size_t to) {
  for (size_t i = 0; i < to; ++i)
    if (nodes[i].kind == NodeKind::Loop) return true;
  return false;
}

std::optional<Plan> make_plan(Kernel& k, int outer_id) {
  Node* outer = find_node(k, outer_id);
  if (!outer || outer->kind != NodeKind::Loop) return std::nullopt;
  const int n = outer->loop;
  if (!independent_iterations(k, n)) return std::nullopt;
  // The m loop: the last node of n's body but end-of-loop markers.
  size_t im = outer->body.size();
  while (im > 0 && outer->body[im - 1].kind == NodeKind::Meta && outer->body[im - 1].meta == MetaKind::Docstring) --im;
  if (im < 2 || outer->body[im - 1].kind != NodeKind::Loop) return std::nullopt;
  Plan p;
  p.outer = outer_id, p.a_size = im - 1;
  // The m nest: loops whose bodies are one loop (and end-of-loop markers), down to the body that splits.
  Node* level = &outer->body[im - 1];
  for (;;) {
    const Loop& lm = k.loops.at(level->loop);
    if (!independent_iterations(k, level->loop) || lm.start.uses(n) || lm.stop.uses(n) || level->frozen) return std::nullopt;
    p.chain.push_back(level->id);
    Node* next = nullptr;
    int others = 0;
    for (auto& x : level->body) {
      if (x.kind == NodeKind::Meta && x.meta == MetaKind::Docstring) continue;
      ++others;
      if (x.kind == NodeKind::Loop) next = &x;
    }
    if (others != 1 || !next) break;
    level = next;
  }
  Node& inner = *level;
  p.inner = inner.id;
  std::set<int> inside_n = {n};
  for_each_node(outer->body, [&](const Node& x, const std::vector<int>&) {
    if (x.kind == NodeKind::Loop) inside_n.insert(x.loop);
  });
  // Lists of tiles built per iteration cannot move between loops here.
  for (const auto& t : k.tensors)
    if (t.list_loop >= 0 && inside_n.count(t.list_loop)) return std::nullopt;
  for (size_t i = 0; i < p.a_size; ++i)
    if (outer->body[i].kind == NodeKind::If || outer->body[i].kind == NodeKind::Inline || outer->body[i].frozen)
      return std::nullopt;
  std::vector<Op*> a_ops = ops_of(outer->body, 0, p.a_size);
  std::set<int> a_writes = written(k, a_ops), a_reads = read(k, a_ops);
  std::vector<Node>& body = inner.body;
  std::map<int, int> blocks;
  while (p.pre_size < body.size()) {
    std::map<int, int> b = blocks;
    std::vector<Op*> ops = ops_of(body, p.pre_size, p.pre_size + 1);
    if (!free_of(k, body[p.pre_size], n, inside_n, b) || meets(read(k, ops), a_writes)) break;
    blocks = std::move(b);
    ++p.pre_size;
  }
  // The prefix now runs once per row instead of once per (block, row): the rest must not write
  // what it writes or reads (`acc = zeros` ... `acc += ...` would accumulate across blocks).
  for (bool shrunk = true; shrunk && p.pre_size > 0;) {
    shrunk = false;
    std::vector<Op*> rest = ops_of(body, p.pre_size, body.size());
    std::set<int> rest_writes = written(k, rest);
    for (size_t i = 0; i < p.pre_size; ++i) {
      std::vector<Op*> ops = ops_of(body, i, i + 1);
      if (meets(written_or_declared(k, ops), rest_writes) || meets(read(k, ops), rest_writes)) {
        p.pre_size = i;
        shrunk = true;
        break;
      }
    }
  }
  if (p.pre_size == 0 || !holds_loop(body, p.pre_size)) return std::nullopt;
  std::vector<Op*> pre = ops_of(body, 0, p.pre_size), rest = ops_of(body, p.pre_size, body.size());
  std::set<int> pre_writes = written(k, pre), rest_writes = written(k, rest), rest_reads = read(k, rest);
  if (rest.empty() || !meets(pre_writes, rest_reads)) return std::nullopt;
  // A runs again for every row: it writes no HBM, accumulates nothing, and reads or writes nothing
  // the prefix or the rest writes; the prefix must not read what A writes (checked above) nor A
  // read what the prefix writes.
  for (const Op* op : a_ops) {
    if (op->accumulate) return std::nullopt;
    for (const Access* w : writes(*op))
      if (!k.tensor(storage_of(k, w->tensor)).on_chip() && !is_declaration(*op)) return std::nullopt;
  }
  if (meets(a_reads, pre_writes) || meets(a_reads, rest_writes) || meets(a_writes, pre_writes) ||
      meets(a_writes, rest_writes))
    return std::nullopt;
  // Block buffers indexed by n in the prefix: only the prefix writes them, every access is in n
  // and indexes that dim by n alone.
  Analysis an(k);
  std::set<const Op*> pre_set(pre.begin(), pre.end());
  for (auto [t, dim] : blocks) {
    for (const OpRef* w : an.writers(k, t))
      if (!is_declaration(w->op()) && !pre_set.count(&w->op())) return std::nullopt;
    for (const auto& r : an.ops) {
      auto check = [&](const Access& a) {
        if (storage_of(k, a.tensor) != t) return true;
        if (a.tensor != t) return false;  // through a view
        if (is_declaration(r.op())) return true;
        if (std::find(r.loops.begin(), r.loops.end(), n) == r.loops.end()) return false;
        const DimIndex& di = a.dims[static_cast<size_t>(dim)];
        return di.start == IExpr::var(n) && di.terms.empty();
      };
      if (r.op().dst && !check(*r.op().dst)) return std::nullopt;
      for (const auto& arg : r.op().args)
        if (arg.value.kind == Operand::Kind::Tile && !check(arg.value.access)) return std::nullopt;
    }
    bool viewed = false;
    for_each_node(k.body, [&](const Node& x, const std::vector<int>&) {
      if (x.view && storage_of(k, x.view->tensor) == t) viewed = true;
    });
    if (viewed) return std::nullopt;
  }
  p.dropped = blocks;
  return p;
}

Node* find_below(Node& root, int id) { return root.id == id ? &root : find_node(root.body, id); }

void reorder(Kernel& k, const Plan& p) {
  for (auto [t, dim] : p.dropped) drop_block_dim(k, t, dim);
  Node* outer = find_node(k, p.outer);
  Node* inner = find_node(k, p.inner);
  auto marker = [](const Node& x) { return x.kind == NodeKind::Meta && x.meta == MetaKind::Docstring; };
  std::vector<Node> pre(std::make_move_iterator(inner->body.begin()),
                        std::make_move_iterator(inner->body.begin() + static_cast<long>(p.pre_size)));
  std::vector<Node> rest(std::make_move_iterator(inner->body.begin() + static_cast<long>(p.pre_size)),
                         std::make_move_iterator(inner->body.end()));
  inner->body.clear();
  rest.erase(std::remove_if(rest.begin(), rest.end(), marker), rest.end());
  // n's body: A, then the rest of the innermost m body (end-of-loop markers of the loops that
  // change places are dropped).
  std::vector<Node> a(std::make_move_iterator(outer->body.begin()),
                      std::make_move_iterator(outer->body.begin() + static_cast<long>(p.a_size)));
  Node nest = std::move(outer->body[p.a_size]);
  a.erase(std::remove_if(a.begin(), a.end(), marker), a.end());
  const int n = outer->loop, m = find_below(nest, p.inner)->loop;
  // Tiles of the rest declared per row are now per (row, block).
  for (auto& x : rest) {
    for (const auto& op : x.ops) {
      if (op.dst && is_declaration(op) && k.tensor(op.dst->tensor).scope_loop == m) k.tensor(op.dst->tensor).scope_loop = n;
      if (op.result >= 0 && k.tensor(op.result).scope_loop == m) k.tensor(op.result).scope_loop = n;
    }
    a.push_back(std::move(x));
  }
  Node new_outer = std::move(*outer);
  new_outer.body = std::move(a);
  new_outer.dirty = true;
  Node* innermost = find_below(nest, p.inner);
  innermost->body = std::move(pre);
  innermost->body.push_back(std::move(new_outer));
  for (Node* level = &nest;; level = &level->body[0]) {
    level->body.erase(std::remove_if(level->body.begin(), level->body.end(), marker), level->body.end());
    level->dirty = true;
    if (level->id == p.inner) break;
  }
  *outer = std::move(nest);  // the m nest takes n's place
}

class ReorderReuse : public Transform {
 public:
  std::string name() const override { return "reorder_reuse"; }
  std::string description() const override {
    return "make the row loop whose operand is prepared per row (loaded, transposed) the outer loop, blocked by 1, "
           "2 or 4 rows, so that preparation happens once per row instead of once per column block and the other "
           "operand is streamed once per block of rows";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      auto plan = make_plan(k, id);
      if (!plan) continue;
      Node* outer = find_node(k, id);
      const std::string nv = k.loops.at(outer->loop).var;
      const std::string mv = k.loops.at(find_node(k, plan->inner)->loop).var;
      Kernel reordered = k;
      reorder(reordered, *plan);
      const auto before = engine_instructions(k, true);
      for (int64_t f : {int64_t(1), int64_t(2), int64_t(4)}) {
        if (f > 1 && !can_jam_rows(reordered, plan->inner, f)) continue;
        Analysis an(k);
        auto s = make_loop_site(k, an, *find_node(k, id),
                                fmt::format("make `for {}` the outer loop{} and run `for {}` inside it", mv,
                                            f > 1 ? fmt::format(" (blocked by {})", f) : "", nv),
                                {{"factor", std::to_string(f)}});
        if (!s) continue;
        // The work it adds: A, run per row now, may hold the other loop's preparation (a reorder
        // back after one made the rows outer, whose transposes then run per column block again);
        // the planner weighs that against the family's busy time.
        Kernel result = reordered;
        if (f > 1) jam_rows(result, plan->inner, f);
        // What it takes work off, measured on the result: the rows' preparation run once per row
        // (its load, its transposes), the other operand's loads shared by the jammed rows.
        WorkChange change = work_change(before, result);
        s->adds = std::move(change.adds);
        s->relieves = std::move(change.relieves);
        if (s->relieves.empty()) s->relieves.insert("serial");
        Plan p = *plan;
        if (sink(*s, [&k, p, f] {
              reorder(k, p);
              if (f > 1) jam_rows(k, p.inner, f);
            }))
          return true;
      }
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_reorder_reuse() { return std::make_unique<ReorderReuse>(); }

}  // namespace loopnest
