// The fills hoist_compute and hoist_transpose leave before the loop they leave (declared in
// hoist_expand.h): fused into one loop, a load buffer only that loop reads made one tile of its
// iteration again, a tile that gained no dim the value it was.
#include <algorithm>
#include <optional>
#include <set>

#include "loopnest/hoist_expand.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

bool locate_stmt(Kernel& k, int id, Node*& node, std::vector<const Node*>& path) {
  node = nullptr;
  each_stmt(k, [&](Node& n, const std::vector<const Node*>& p) {
    if (n.id == id) {
      node = &n;
      path = p;
    }
  });
  return node != nullptr;
}

std::optional<ExpandPlan> whole_expand_plan(Kernel& k, int id, int outer, bool compute) {
  Node* n = nullptr;
  std::vector<const Node*> path;
  if (!locate_stmt(k, id, n, path)) return std::nullopt;
  for (const auto& p : expand_plans(k, *n, path, compute))
    if (p.outer == outer && p.chunk == 0) return p;
  return std::nullopt;
}

// The nodes the hoists put before the loop it leaves (block[from, to)): declarations first, then the
// fill loops fused into one where their ranges agree (each fill writes its buffer's block of this
// iteration and the instruction's reads the blocks of the same iteration, so one loop computes the
// same). fuse_loops contracts the block buffers the fused loop alone uses where contract.cpp can
// (a load buffer only the instruction reads, in the legacy style); elsewhere such a buffer stays
// whole (counted so by the capacity rule).
// Returns the fused fill's node id (-1 when there is no fill loop).
int merge_fills(Kernel& k, std::vector<Node>& block, size_t from, size_t to) {
  std::stable_partition(block.begin() + static_cast<long>(from), block.begin() + static_cast<long>(to),
                        [](const Node& n) { return n.kind != NodeKind::Loop; });
  std::vector<int> fills;
  for (size_t i = from; i < to; ++i)
    if (block[i].kind == NodeKind::Loop) fills.push_back(block[i].id);
  for (size_t i = 1; i < fills.size(); ++i) {
    const Loop& a = k.loops.at(find_node(k, fills[0])->loop);
    const Loop& b = k.loops.at(find_node(k, fills[i])->loop);
    if (!(a.start == b.start) || !(a.stop == b.stop) || a.step != b.step || a.kind != b.kind) break;
    fuse_loops(k, fills[0], fills[i]);
  }
  return fills.empty() ? -1 : fills[0];
}

// A load buffer only the fused fill touches (the block of its own iteration, read by the
// instruction alone) needs no block per iteration: it becomes one tile of the fill's iteration again,
// as the author wrote it (the load's value, or a tile declared in the loop), and the SBUF it took
// is free. Only a buffer with one added dim (the fill one loop deep) and none dropped.
void private_tile(Kernel& k, const ExpandPlan& p, int fill_id, bool was_value) {
  if (!p.dropped.empty() || p.added.size() != 1) return;
  Node* fill = find_node(k, fill_id);
  if (!fill || fill->kind != NodeKind::Loop) return;
  Tensor& t = k.tensor(p.tensor);
  size_t at = static_cast<size_t>(k.dialect.new_api ? t.partition_dim + 1 : t.partition_dim - 1);
  std::set<const Op*> inside;
  for (auto& n : fill->body)
    if (n.kind == NodeKind::Stmt)
      for (auto& op : n.ops) inside.insert(&op);
  bool ok = true;
  int decl = -1;
  auto check = [&](const Access& a, const Op& op) {
    if (storage_of(k, a.tensor) != p.tensor) return;
    ok = ok && a.tensor == p.tensor && inside.count(&op) && a.dims.size() == t.shape.size() && at < a.dims.size() &&
         a.dims[at].terms.empty() && a.dims[at].start == IExpr::var(fill->loop);
  };
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (is_declaration(op)) {
        if (op.dst && op.dst->tensor == p.tensor) decl = n.ops.size() == 1 ? n.id : -2;
        continue;
      }
      for (const Access* a : reads(op)) check(*a, op);
      for (const Access* a : writes(op)) check(*a, op);
    }
  });
  if (!ok || decl == -2) return;
  for (auto& n : fill->body)
    for (auto& op : n.ops) {
      bool touched = false;
      if (op.dst && op.dst->tensor == p.tensor) {
        op.dst->dims.erase(op.dst->dims.begin() + static_cast<long>(at));
        op.dst_origin = nullptr;
        touched = true;
      }
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == p.tensor) {
          a.value.access.dims.erase(a.value.access.dims.begin() + static_cast<long>(at));
          a.value.origin = nullptr;
          touched = true;
        }
      if (touched && was_value && op.cls == OpClass::Load && op.dst && op.dst->tensor == p.tensor) {
        op.dst.reset();
        op.result = p.tensor;
        op.dst_first = false;
      }
      if (touched) n.dirty = true;
    }
  t.shape.erase(t.shape.begin() + static_cast<long>(at));
  if (!t.dim_text.empty()) t.dim_text.erase(t.dim_text.begin() + static_cast<long>(at));
  if (!k.dialect.new_api) t.partition_dim -= 1;
  t.scope_loop = fill->loop;
  std::optional<Node> moved;
  if (decl >= 0) {
    moved = *find_node(k, decl);
    erase_node(k, decl);
  }
  fill = find_node(k, fill_id);
  if (was_value) {
    t.role = TensorRole::Value;
  } else if (moved) {
    fill->body.insert(fill->body.begin(), std::move(*moved));
    redeclare(k, {p.tensor});
  }
}

// A tile the expansion turned into a declared buffer although it gained no dim (hoisted out of the
// loop right around it alone) is the value it was again (`x_t = nl.load(...)`, as the author wrote
// it): its writer returns it and its declaration goes. One walk finds the declaration and the writer.
void value_again(Kernel& k, const ExpandPlan& p) {
  if (p.added.empty() && p.dropped.empty()) value_again(k, p.tensor);
}

void value_again(Kernel& k, int tensor) {
  std::vector<int> decls;
  int writers = 0;
  Node* writer_node = nullptr;
  Op* writer = nullptr;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (!op.dst || op.dst->tensor != tensor) continue;
      if (is_declaration(op)) {
        if (n.ops.size() == 1) decls.push_back(n.id);
        continue;
      }
      ++writers;
      writer_node = &n;
      writer = &op;
    }
  });
  if (writers != 1 || decls.size() != 1 || writer->accumulate || !(*writer->dst == whole_of(k, tensor))) return;
  writer->dst = whole_of(k, tensor);  // a value's writer writes it whole (the lift's form)
  writer->dst_origin = nullptr;
  writer->dst_first = false;
  writer->result = tensor;
  writer_node->dirty = true;
  k.tensor(tensor).role = TensorRole::Value;
  erase_node(k, decls[0]);
}

}  // namespace loopnest
