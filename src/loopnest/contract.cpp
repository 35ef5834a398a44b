// Contraction of block buffers on the form: an on-chip buffer declared with block dims in front of
// its partition dim (`v14 = nl.ndarray((16, 32, par_dim(128), 4096))`, `scores = nl.ndarray((m_tiles,
// par_dim(128), n))`) whose every access indexes each block dim by the variable of an enclosing
// loop (`v14[i0, i1, ...]`) uses each block in one iteration only. Such a buffer becomes one tile
// declared at the top of the innermost of those loops (`v14 = nl.ndarray((par_dim(128), 4096))`
// inside `for i1`), its accesses without the block dims: the same program with the storage of an
// iteration's block private to the iteration, as a kernel written with per-iteration tiles has it.
// Fusing a producer loop with its consumer makes the buffers that flowed between them local to
// one iteration; contracting them is what lets the two styles of the same nest simulate alike
// (the legacy kernel's fused softmax: 6.21 ms with the block buffers, 5.00 ms contracted).
//
// Legal when, for a fixed iteration of every loop enclosing the innermost indexing loop, the
// accesses touch one block: every loop around the accesses down to that loop either indexes a
// block dim or encloses the declaration (a buffer declared inside `for b` is one per `b`). A
// zero-initialized buffer (`nl.zeros`) stays zero-initialized: each block was zeroed once and
// used in one iteration, so a tile zeroed once per iteration holds the same values.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

struct Candidate {
  int tensor = -1;
  int decl_node = -1;
  int loop = -1;                 // the loop whose iteration owns a block (innermost indexing loop)
  std::vector<IExpr> dim_index;  // the index of each block dim, the same in every access
  std::vector<int> dim_loops;    // the loops those indices use
};

// Distinct values of the loops in `loops` give distinct block index tuples (checked by
// enumeration over the loops' ranges, up to 2^16 points; larger spaces are refused).
bool injective(const Kernel& k, const std::vector<IExpr>& index, const std::vector<int>& loops) {
  Ranges ranges = k.ranges();
  int64_t points = 1;
  for (int l : loops) {
    auto it = ranges.find(l);
    if (it == ranges.end()) return false;
    points *= it->second.second - it->second.first + 1;
    if (points > (1 << 16)) return false;
  }
  std::set<std::vector<int64_t>> seen;
  std::map<int, int64_t> values;
  for (int l : loops) values[l] = ranges.at(l).first;
  for (int64_t p = 0; p < points; ++p) {
    std::vector<int64_t> tuple;
    for (const auto& e : index) {
      auto v = e.eval(values);
      if (!v) return false;
      tuple.push_back(*v);
    }
    if (!seen.insert(tuple).second) return false;
    for (int l : loops) {  // next point, mixed radix
      if (++values[l] <= ranges.at(l).second) break;
      values[l] = ranges.at(l).first;
    }
  }
  return true;
}

bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The accesses of `t` an op makes (exactly `t`, not a view of it); false when it touches a view.
bool accesses_of(const Kernel& k, Op& op, int t, std::vector<Access*>& out) {
  bool view = false;
  auto note = [&](Access& a) {
    if (a.tensor == t) out.push_back(&a);
    else if (storage_of(k, a.tensor) == t) view = true;
  };
  if (op.dst) note(*op.dst);
  for (auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile) note(a.value.access);
  return !view;
}

std::optional<Candidate> candidate(Kernel& k, Analysis& an, int t, int within_loop) {
  const Tensor& tensor = k.tensor(t);
  if (tensor.role != TensorRole::Buffer || !tensor.on_chip() || tensor.partition_dim < 1 || tensor.list_loop >= 0)
    return std::nullopt;
  if (has(k.outputs, t)) return std::nullopt;
  for (const auto& other : k.tensors)
    if (other.id != t && other.role == TensorRole::View && storage_of(k, other.id) == t) return std::nullopt;
  bool viewed = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Meta && n.view && storage_of(k, n.view->tensor) == t) viewed = true;
  });
  if (viewed) return std::nullopt;
  Candidate c;
  c.tensor = t;
  size_t blocks = static_cast<size_t>(tensor.partition_dim);
  const OpRef* decl = nullptr;
  std::vector<const OpRef*> users;
  for (const auto& r : an.ops) {
    std::vector<Access*> acc;
    if (!accesses_of(k, r.op(), t, acc)) return std::nullopt;
    if (acc.empty()) continue;
    if (is_declaration(r.op()) && r.op().dst && r.op().dst->tensor == t) {
      if (decl || r.node->ops.size() != 1 || r.node->kind != NodeKind::Stmt) return std::nullopt;
      decl = &r;
      continue;
    }
    if (r.node->frozen || r.node->kind != NodeKind::Stmt) return std::nullopt;
    users.push_back(&r);
    for (Access* a : acc) {
      if (a->dims.size() != tensor.shape.size()) return std::nullopt;
      std::vector<IExpr> index;
      for (size_t d = 0; d < blocks; ++d) {
        const DimIndex& di = a->dims[d];
        if (!di.terms.empty() || !di.start.is_affine()) return std::nullopt;
        for (int v : di.start.vars())
          if (!has(r.loops, v)) return std::nullopt;
        index.push_back(di.start);
      }
      if (c.dim_index.empty()) c.dim_index = index;
      else if (c.dim_index != index) return std::nullopt;
    }
  }
  if (!decl || users.empty() || decl->node->frozen) return std::nullopt;
  // A statement naming the buffer without touching it (`nl.ndarray((scores[i].shape[0], 1))`)
  // would see the contracted shape.
  std::set<const Node*> touching = {decl->node};
  for (const OpRef* r : users) touching.insert(r->node);
  bool named = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (!touching.count(&n) && n.kind != NodeKind::Loop && n.kind != NodeKind::If && mentions(k, n, tensor.name)) named = true;
  });
  if (named) return std::nullopt;
  for (const auto& e : c.dim_index)
    for (int v : e.vars())
      if (!has(c.dim_loops, v)) c.dim_loops.push_back(v);
  if (c.dim_loops.empty() || !injective(k, c.dim_index, c.dim_loops)) return std::nullopt;
  // The innermost indexing loop, the same for every user; every loop down to it indexes a block
  // dim or encloses the declaration.
  for (const OpRef* r : users) {
    int innermost = -1;
    size_t depth = 0;
    for (size_t i = 0; i < r->loops.size(); ++i)
      if (has(c.dim_loops, r->loops[i])) innermost = r->loops[i], depth = i;
    if (innermost < 0 || (c.loop >= 0 && c.loop != innermost)) return std::nullopt;
    c.loop = innermost;
    for (size_t i = 0; i <= depth; ++i)
      if (!has(c.dim_loops, r->loops[i]) && !has(decl->loops, r->loops[i])) return std::nullopt;
    if (within_loop >= 0 && !has(r->loops, within_loop)) return std::nullopt;
  }
  for (int l : c.dim_loops)
    if (has(decl->loops, l)) return std::nullopt;  // declared inside an indexing loop: already per iteration
  c.decl_node = decl->node->id;
  return c;
}

void drop_block_dims(Access& a, size_t blocks) { a.dims.erase(a.dims.begin(), a.dims.begin() + static_cast<long>(blocks)); }

void contract(Kernel& k, const Candidate& c) {
  Tensor& t = k.tensor(c.tensor);
  size_t blocks = static_cast<size_t>(t.partition_dim);
  t.shape.erase(t.shape.begin(), t.shape.begin() + static_cast<long>(blocks));
  t.partition_dim = 0;
  t.scope_loop = c.loop;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    if (n.id == c.decl_node) return;
    for (auto& op : n.ops) {
      bool touched = false;
      if (op.dst && op.dst->tensor == c.tensor) {
        drop_block_dims(*op.dst, blocks);
        op.dst_origin = nullptr;
        touched = true;
      }
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == c.tensor) {
          drop_block_dims(a.value.access, blocks);
          a.value.origin = nullptr;
          touched = true;
        }
      if (touched) n.dirty = true;
    }
  });
  Node decl = *find_node(k, c.decl_node);
  erase_node(k, c.decl_node);
  Op& op = decl.ops[0];
  if (op.dst) {  // the whole tile, its axes numbered from 0 again
    drop_block_dims(*op.dst, blocks);
    for (auto& d : op.dst->dims)
      for (auto& term : d.terms) term.axis -= static_cast<int>(blocks);
  }
  if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape) {
    auto& s = shape->value.shape;
    s.erase(s.begin(), s.begin() + static_cast<long>(std::min(blocks, s.size())));
    shape->value.origin = nullptr;
  }
  decl.dirty = true;
  decl.patch.clear();
  // After the declarations already at the top of the loop (contracted before this one: the
  // buffers keep their order).
  Node* owner = loop_node(k, c.loop);
  auto at = owner->body.begin();
  while (at != owner->body.end() && at->kind == NodeKind::Stmt && at->ops.size() == 1 && is_declaration(at->ops[0])) ++at;
  owner->body.insert(at, std::move(decl));
}

}  // namespace

int contract_block_buffers(Kernel& k, int within_loop) {
  int done = 0;
  for (bool again = true; again;) {
    again = false;
    Analysis an(k);
    for (const auto& t : k.tensors) {
      auto c = candidate(k, an, t.id, within_loop);
      if (!c) continue;
      contract(k, *c);
      ++done;
      again = true;
      break;
    }
  }
  return done;
}

bool contract_block_buffer(Kernel& k, int t, bool apply) {
  Analysis an(k);
  auto c = candidate(k, an, t, -1);
  if (!c) return false;
  if (apply) contract(k, *c);
  return true;
}

}  // namespace loopnest
