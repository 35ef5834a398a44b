// Sums moved into the Tensor Engine's PSUM accumulation. A loop that adds tiles into an fp32 on-chip
// accumulator (`acc = nl.add(acc, tile)`, `acc += tile`, `tensor_tensor(dst=acc, data1=acc,
// data2=tile, op=add)`) whose only use after the loop is one matmul operand (`total =
// nc_matmul(ones, acc)`: a column sum, a projection of the sum) computes, by linearity of the matmul
// in each operand, the same as accumulating the matmul of every tile into PSUM:
//
//   acc = zeros(sbuf); for i: acc += t_i; total = matmul(S, acc)
//   ->  total = zeros(psum); for i: total += matmul(S, t_i)
//
// The Vector Engine's fp32 adds (both inputs in SBUF: 2N cycles each, ISA cost table) become
// Tensor Engine passes that accumulate in PSUM for free, and the matmul after the loop goes. Legal
// from the dependences on the form, not from the text:
//   - the accumulator is an fp32 SBUF buffer without block dims, view or list; its writes are one
//     zeroing declaration before the loop and one add of a whole tile of its own shape and dtype in
//     the loop's body (directly: not under a condition or an inner loop);
//   - its only other reader is one matmul after the loop, outside it, reading it whole as one
//     operand, returning a new (PSUM) tile the statement names, or writing a PSUM tile declared
//     for it (destination-first); the matmul's other operands are
//     not written in the loop nor between the loop and the matmul, except by statements that may
//     move before the loop (they commute with it and with everything between: commute.h), which
//     the move does;
//   - the matmul has no `accumulate=` of its own and no mask.
// The zeroing may be `nl.zeros(...)` or a declaration without values zeroed by `nisa.memset(...,
// value=0)` (the newer API); the new PSUM tile is declared with nl.zeros where it was.
#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "loopnest/commute.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool is_zeroing(const Op& op) {
  if (op.api == "nl.zeros" || op.api == "nl.zeros_like") return true;
  if (op.cls != OpClass::Memset) return false;
  const Operand* v = operand(op, "value");
  if (!v) v = operand(op, "fill_value");
  return v && v->kind == Operand::Kind::Number && v->number == 0;
}

// The tile added into `acc` by `op` when it is `acc = acc + X` / `acc += X` of whole tiles.
std::optional<Operand> added_tile(const Kernel& k, const Op& op, int acc) {
  if (op.arg("mask") || op.has_mask || !op.dst || storage_of(k, op.dst->tensor) != acc || op.dst->tensor != acc ||
      !accesses_whole(k, *op.dst))
    return std::nullopt;
  std::vector<const Operand*> tiles;
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && !a.output) tiles.push_back(&a.value);
  std::string kind = op_kind(op);
  if (op.accumulate && kind == "accumulate" && tiles.size() == 1) return *tiles[0];
  if (op.accumulate || kind != "add" || tiles.size() != 2) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const Access& self = tiles[i]->access;
    if (self.tensor == acc && accesses_whole(k, self) && tiles[1 - i]->access.tensor != acc) return *tiles[1 - i];
  }
  return std::nullopt;
}

bool same_shape(const std::vector<IExpr>& a, const std::vector<IExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

// The loop node with id `loop` in `block`, by position.
std::optional<size_t> position_of_loop(const std::vector<Node>& block, int loop) {
  for (size_t i = 0; i < block.size(); ++i)
    if (block[i].kind == NodeKind::Loop && block[i].loop == loop) return i;
  return std::nullopt;
}

// The operations writing `t` and those declaring it (a declaration without values writes nothing,
// so Analysis::writers leaves it out), in program order.
std::vector<const OpRef*> writers_and_declarations(const Kernel& k, const Analysis& an, int t) {
  std::vector<const OpRef*> out = an.writers(k, t);
  for (const auto& r : an.ops)
    if (is_declaration(r.op()) && r.op().dst && r.op().dst->tensor == t &&
        std::find(out.begin(), out.end(), &r) == out.end())
      out.push_back(&r);
  std::sort(out.begin(), out.end(), [](const OpRef* a, const OpRef* b) { return a->order < b->order; });
  return out;
}

struct Found {
  int acc = -1, result = -1, loop = -1;
  const OpRef* add = nullptr;      // the accumulating write
  const OpRef* matmul = nullptr;   // the reader after the loop
  const OpRef* zeroing = nullptr;  // the accumulator's declaration (zeroed, or with the memset after it)
  const OpRef* memset = nullptr;   // `nisa.memset(dst=acc, value=0)` after a declaration without values
  const OpRef* result_decl = nullptr;  // the PSUM tile a destination-first matmul writes, declared
  std::string operand;             // the matmul's argument reading the accumulator
  Operand tile;                    // what the loop adds
  std::vector<int> to_move;        // node ids (after the loop) to move before it, in order
};

class MatmulAccumulate : public Transform {
 public:
  std::string name() const override { return "matmul_accumulate"; }
  std::string description() const override {
    return "sum into PSUM on the Tensor Engine: a loop's tile sum read by one matmul becomes the matmul of each tile, "
           "accumulated in PSUM";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const Tensor& t : k.tensors) {
      auto f = candidate(k, an, t);
      if (!f) continue;
      Site s = make_site(k, an, *f->add,
                         fmt::format("accumulate `{}` in PSUM as matmuls of each added tile, instead of summing `{}` "
                                     "on the {} and one matmul after the loop",
                                     k.tensor(f->result).name, t.name, to_string(f->add->op().engine)));
      s.relieves.insert(to_string(f->add->op().engine));
      Found found = *f;
      if (sink(s, [&k, found] { apply(k, found); })) return true;
    }
    return false;
  }

 private:
  static std::optional<Found> candidate(Kernel& k, const Analysis& an, const Tensor& t) {
    if (t.role != TensorRole::Buffer || t.memory != Memory::Sbuf || t.dtype != "float32" || t.partition_dim != 0)
      return std::nullopt;
    if (!t.list_name.empty()) return std::nullopt;
    for (const auto& u : k.tensors)
      if (u.base == t.id) return std::nullopt;
    Found f;
    f.acc = t.id;
    for (const OpRef* w : writers_and_declarations(k, an, t.id)) {
      const Op& op = w->op();
      if (w->node->frozen) return std::nullopt;
      bool alone = w->node->ops.size() == 1 && w->node->kind == NodeKind::Stmt;
      if (is_declaration(op) && (is_zeroing(op) || op.cls == OpClass::Alloc) && !f.zeroing && alone) {
        f.zeroing = w;
        continue;
      }
      if (!is_declaration(op) && is_zeroing(op) && !f.memset && alone && accesses_whole(k, *op.dst)) {
        f.memset = w;
        continue;
      }
      if (is_declaration(op) || f.add || w->loops.empty() || w->node->ops.size() != 1) return std::nullopt;
      auto x = added_tile(k, op, t.id);
      if (!x) return std::nullopt;
      f.add = w;
      f.tile = *x;
    }
    if (!f.zeroing || !f.add || f.zeroing->order > f.add->order) return std::nullopt;
    // A declaration without values is zeroed by the memset, at its level before the loop.
    if (f.zeroing->op().cls == OpClass::Alloc &&
        (!f.memset || f.memset->block != f.zeroing->block || f.memset->order > f.add->order))
      return std::nullopt;
    if (f.zeroing->op().cls != OpClass::Alloc && f.memset) return std::nullopt;
    f.loop = f.add->loops.back();
    const Tensor& x = k.tensor(f.tile.access.tensor);
    if (x.dtype != t.dtype || !same_shape(f.tile.access.tile_shape(), t.shape)) return std::nullopt;
    // The declaration outside the loop, at the loop's level.
    std::vector<int> outer(f.add->loops.begin(), f.add->loops.end() - 1);
    if (f.zeroing->loops != outer) return std::nullopt;
    auto loop_at = position_of_loop(*f.zeroing->block, f.loop);
    if (!loop_at || f.add->block != &f.zeroing->block->at(*loop_at).body) return std::nullopt;
    for (const OpRef* r : an.readers(k, t.id)) {
      if (r == f.add) continue;
      if (f.matmul || r->op().cls != OpClass::Matmul || r->node->frozen) return std::nullopt;
      f.matmul = r;
    }
    if (!f.matmul || f.matmul->block != f.zeroing->block || f.matmul->position <= *loop_at) return std::nullopt;
    const Op& mm = f.matmul->op();
    if (f.matmul->node->ops.size() != 1 || mm.arg("accumulate") || mm.has_mask) return std::nullopt;
    f.result = mm.result;
    if (mm.result >= 0 && mm.accumulate) return std::nullopt;
    if (mm.result < 0) {
      // Destination-first (`nisa.nc_matmul(dst=total, ...)` into a PSUM tile declared for it): the
      // tile's only other writer is its declaration, without values, which the move replaces.
      if (!mm.dst || !accesses_whole(k, *mm.dst)) return std::nullopt;
      f.result = mm.dst->tensor;
      for (const OpRef* w : writers_and_declarations(k, an, f.result)) {
        if (w == f.matmul) continue;
        if (f.result_decl || w->op().cls != OpClass::Alloc || w->node->ops.size() != 1 || w->block != f.zeroing->block)
          return std::nullopt;
        f.result_decl = w;
      }
      if (!f.result_decl) return std::nullopt;
    }
    if (k.tensor(f.result).name.empty() || k.tensor(f.result).memory != Memory::Psum) return std::nullopt;
    for (const auto& a : mm.args) {
      if (a.value.kind != Operand::Kind::Tile) continue;
      if (a.value.access.tensor == t.id) {
        if (!f.operand.empty() || !accesses_whole(k, a.value.access)) return std::nullopt;
        f.operand = a.name;
        continue;
      }
      // Every writer of another operand sits before the loop, or after it at the loop's level where
      // it may move before the loop.
      for (const OpRef* w : writers_and_declarations(k, an, a.value.access.tensor)) {
        if (w->order < f.zeroing->order || (w->block == f.zeroing->block && w->position < *loop_at)) continue;
        if (w->block != f.zeroing->block || w->position > f.matmul->position) return std::nullopt;
        if (std::find(f.to_move.begin(), f.to_move.end(), w->node->id) == f.to_move.end()) f.to_move.push_back(w->node->id);
      }
    }
    if (f.operand.empty()) return std::nullopt;
    // Each moved statement commutes with the loop and every node between them.
    const std::vector<Node>& block = *f.zeroing->block;
    for (int id : f.to_move) {
      size_t at = 0;
      while (block[at].id != id) ++at;
      for (size_t i = *loop_at; i < at; ++i) {
        bool moved_too = std::find(f.to_move.begin(), f.to_move.end(), block[i].id) != f.to_move.end();
        if (!moved_too && !commute(k, block[i], block[at])) return std::nullopt;
      }
    }
    return f;
  }

  static void apply(Kernel& k, const Found& f) {
    std::vector<Node>& block = *f.zeroing->block;
    int zero_id = f.zeroing->node->id, memset_id = f.memset ? f.memset->node->id : -1;
    int result_decl_id = f.result_decl ? f.result_decl->node->id : -1;
    int add_id = f.add->node->id, mm_id = f.matmul->node->id;
    Op mm = f.matmul->op();
    // total += matmul(S, tile) in the loop, where the add was.
    mm.result = -1;
    mm.accumulate = true;
    Tensor& r = k.tensor(f.result);
    Access whole = whole_of(k, r.id);
    mm.dst = whole;
    mm.dst_origin = nullptr;
    mm.arg(f.operand)->value = f.tile;
    Node* add = find_node(k, add_id);
    add->ops = {mm};
    add->dirty = true;
    add->patch.clear();
    // total = nl.zeros(psum) where the accumulator was declared, after the statements moved.
    Op zeros = zeros_declaration(k, r.id, Memory::Psum);
    r.role = TensorRole::Buffer;
    r.dtype = "float32";
    r.scope_loop = f.zeroing->loops.empty() ? -1 : f.zeroing->loops.back();
    std::vector<Node> moved;
    for (int id : f.to_move)
      for (size_t i = 0; i < block.size(); ++i)
        if (block[i].id == id) {
          moved.push_back(std::move(block[i]));
          block.erase(block.begin() + static_cast<long>(i));
          break;
        }
    erase_node(k, mm_id);
    if (memset_id >= 0) erase_node(k, memset_id);
    if (result_decl_id >= 0) erase_node(k, result_decl_id);
    size_t at = 0;
    while (block[at].id != zero_id) ++at;
    Node& decl = block[at];
    decl.ops = {zeros};
    decl.dirty = true;
    decl.patch.clear();
    block.insert(block.begin() + static_cast<long>(at), std::make_move_iterator(moved.begin()),
                 std::make_move_iterator(moved.end()));
    remove_dead_buffers(k);
  }
};

}  // namespace

std::unique_ptr<Transform> make_matmul_accumulate() { return std::make_unique<MatmulAccumulate>(); }

}  // namespace loopnest
