// Chunking whole rows on the form: a loop body working on rows of N columns ([128 x 7168] tiles
// of 28 KiB per partition: nothing overlaps, little fits) runs over column chunks of C instead,
// in a new loop around its statements: tiles it makes are [P x C], accesses walk the chunk.
// A scan along the row (tensor_tensor_scan from 0) starts each chunk from the last column of the
// previous chunk's result, kept in a carry buffer (the loop is then sequential); statements that
// touch no row stay before the chunk loop. Legal when every instruction is elementwise along the
// row (loads, stores, ALU and activation ops, copies, partition broadcasts) or a scan along it,
// with no mask, and no tile the body makes is used after it.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/transform.h"
#include "tensor/dtype.h"
#include "trn/arch_config.h"

namespace loopnest {

namespace {

// The free extent (tile axis 1) of an access when it covers a whole dim of length n in one term;
// the dim carrying it.
std::optional<int> row_dim(const Access& a, int64_t n) {
  for (size_t d = 0; d < a.dims.size(); ++d)
    for (const auto& t : a.dims[d].terms)
      if (t.axis == 1 && t.stride == 1 && t.size == IExpr(n) && a.dims[d].terms.size() == 1) return static_cast<int>(d);
  return std::nullopt;
}

bool elementwise_along_rows(const Op& op) {
  switch (op.cls) {
    case OpClass::Load: case OpClass::Store: case OpClass::Elementwise: case OpClass::Activation: case OpClass::Copy:
    case OpClass::Memset: case OpClass::Alloc: case OpClass::Broadcast: case OpClass::Scan:
      return op.api != "nisa.activation_reduce" && op.api != "nisa.tensor_scalar_reduce";
    default: return false;
  }
}

struct Plan {
  std::vector<Node>* block = nullptr;
  size_t first = 0, last = 0;    // the region: block[first..last]
  std::vector<size_t> before;    // nodes of the region that touch no row: they stay before the loop
  int64_t n = 0, chunk = 0;
  std::set<int> shrunk;          // tensors made in the region: [.., n] -> [.., chunk]
  bool scans = false;
  // Accumulators zeroed up front (nl.zeros before the region): zeroed again for every chunk.
  std::vector<Access> zero;
  // Declarations before the region, in the same block, of tiles only the region uses: they
  // belong to the chunk loop's body (one tile per chunk, as a tile the region makes itself), not
  // to the loop around it (one tile every chunk would wait on).
  std::vector<size_t> declarations;
};

// Bytes per partition of the whole-row tiles one pass over the region writes (each written tile
// once, whatever storage the style gives it: a named tile, an inner call's result, a block of a
// buffer).
int64_t row_tile_bytes(const Kernel& k, const Plan& p) {
  std::vector<std::pair<int, Access>> seen;
  int64_t bytes = 0;
  for (size_t i = p.first; i <= p.last; ++i) {
    std::vector<Op*> ops;
    ops_of((*p.block)[i], ops);
    for (const Op* op : ops) {
      if (is_declaration(*op) || !op->dst || !row_dim(*op->dst, p.n)) continue;
      int t = storage_of(k, op->dst->tensor);
      if (std::find(seen.begin(), seen.end(), std::make_pair(t, *op->dst)) != seen.end()) continue;
      seen.emplace_back(t, *op->dst);
      auto dtype = tensor::parse_dtype(k.tensor(t).dtype);
      int64_t tile = dtype ? tensor::itemsize(*dtype) : 4;
      auto shape = op->dst->tile_shape();
      for (size_t a = 1; a < shape.size(); ++a) tile *= shape[a].is_constant() ? shape[a].constant() : 1;
      bytes += tile;
    }
  }
  return bytes;
}

class ChunkRows : public Transform {
 public:
  std::string name() const override { return "chunk_rows"; }
  std::string description() const override {
    return "run a loop body that works on whole rows over column chunks (a new loop): smaller tiles that "
           "pipeline, scans carried from chunk to chunk";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<std::vector<Node>*> blocks = {&k.body};
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (n.kind == NodeKind::Loop && !n.frozen) blocks.push_back(&n.body);
    });
    for (size_t bi = 0; bi < blocks.size(); ++bi) {
      for (int64_t chunk : {int64_t(512), int64_t(1024), int64_t(2048)}) {
        auto plan = make_plan(k, *blocks[bi], chunk);
        if (!plan) continue;
        Analysis an(k);
        const OpRef* anchor = nullptr;
        for (const auto& r : an.ops)
          if (r.block == plan->block && r.position >= plan->first && r.position <= plan->last &&
              !is_declaration(r.op()) && row_touching(r.op(), plan->n)) {
            anchor = &r;
            break;
          }
        if (!anchor) continue;
        Site s = make_site(k, an, *anchor,
                           fmt::format("process the rows of {} columns in chunks of {}{}", plan->n, chunk,
                                       plan->scans ? " (scans carried between chunks)" : ""),
                           {{"chunk", std::to_string(chunk)}});
        // Whole rows that take over half an SBUF partition: one iteration's tiles cannot be live
        // beside the next one's, so the engines wait on space; chunks free it ("sbuf").
        if (2 * row_tile_bytes(k, *plan) > trn::arch_config("trn1").sbuf_bytes_per_partition) s.relieves.insert("sbuf");
        Plan p = *plan;
        if (sink(s, [&k, p] { apply(k, p); })) return true;
      }
    }
    return false;
  }

 private:
  static bool row_touching(const Op& op, int64_t n) {
    if (op.dst && row_dim(*op.dst, n)) return true;
    for (const auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile && row_dim(a.value.access, n)) return true;
    return false;
  }

  static std::optional<Plan> make_plan(Kernel& k, std::vector<Node>& block, int64_t chunk) {
    // The row length: the widest free extent of a full-row access in the block.
    int64_t n = 0;
    for (auto& node : block) {
      std::vector<Op*> ops;
      ops_of(node, ops);
      for (Op* op : ops)
        for (const Access* a : reads(*op)) {
          auto shape = a->tile_shape();
          if (shape.size() == 2 && shape[1].is_constant()) n = std::max(n, shape[1].constant());
        }
    }
    if (n < 2 * chunk || n % chunk) return std::nullopt;
    Plan p;
    p.block = &block;
    p.n = n;
    p.chunk = chunk;
    bool any = false;
    for (size_t i = 0; i < block.size(); ++i) {
      std::vector<Op*> ops;
      ops_of(block[i], ops);
      bool touches = false;  // (a declaration alone does not start or end the region)
      for (Op* op : ops) touches = touches || (row_touching(*op, n) && !is_declaration(*op));
      if (!touches) continue;
      if (!any) p.first = i;
      p.last = i;
      any = true;
    }
    if (!any) return std::nullopt;
    // Every statement of the region: elementwise along the row or a scan along it, no mask.
    std::set<const Op*> region_ops;
    for (size_t i = p.first; i <= p.last; ++i) {
      Node& node = block[i];
      if (node.frozen || node.kind == NodeKind::If || node.kind == NodeKind::Inline) return std::nullopt;
      std::vector<Op*> ops;
      ops_of(node, ops);
      bool touches = false;
      for (Op* op : ops) {
        region_ops.insert(op);
        touches = touches || row_touching(*op, n);
        if (!elementwise_along_rows(*op) || op->has_mask || has_index_operand(*op)) return std::nullopt;
        // Done once per chunk now: an accumulation that does not follow the row would repeat.
        if (!row_touching(*op, n) && op->accumulate) return std::nullopt;
        if (op->cls == OpClass::Scan) {
          const Arg* init = op->arg("initial");
          if (!init || init->value.kind != Operand::Kind::Number || init->value.number != 0) return std::nullopt;
          p.scans = true;
        }
        // Every tile operand of a row op is a whole row or a column ([P, 1], a scalar).
        if (!row_touching(*op, n)) continue;
        for (const auto& a : op->args) {
          if (a.value.kind != Operand::Kind::Tile) continue;
          auto shape = a.value.access.tile_shape();
          bool row = row_dim(a.value.access, n).has_value();
          // (A column indexed by an integer, `a_t[:, s]`, is a [P] vector: one value per partition too.)
          bool column = (shape.size() == 2 && shape[1] == IExpr(1)) || shape.size() == 1;
          if (!row && !column) return std::nullopt;
        }
      }
      if (!touches && node.kind == NodeKind::Stmt) {
        // It moves before the region's earlier statements: it must not read what they write.
        Ranges ranges = k.ranges();
        for (size_t e = p.first; e < i; ++e) {
          std::vector<Op*> earlier;
          ops_of(block[e], earlier);
          for (Op* w : earlier)
            for (const Access* wa : writes(*w))
              for (Op* op : ops)
                for (const Access* r : reads(*op))
                  if (may_overlap_across(k, *wa, *r, ranges)) return std::nullopt;
        }
        p.before.push_back(i);
      }
    }
    // Tiles the region makes shrink to a chunk; none is used after it.
    Analysis an(k);
    for (const auto& r : an.ops) {
      if (!region_ops.count(&r.op())) continue;
      for (const Access* w : writes(r.op())) {
        int t = storage_of(k, w->tensor);
        const Tensor& tensor = k.tensor(t);
        if (!tensor.on_chip() || !row_dim(*w, n)) continue;
        bool made_here = false;
        for (size_t i = p.first; i <= p.last; ++i) {
          std::vector<Op*> ops;
          ops_of(block[i], ops);
          for (Op* op : ops)
            if ((op->result == t) || (is_declaration(*op) && op->dst && op->dst->tensor == t)) made_here = true;
        }
        // A block buffer declared up front (the published style) shrinks as well when only the
        // region uses it (checked below with every tile that shrinks).
        bool up_front = !made_here && tensor.role == TensorRole::Buffer && tensor.partition_dim >= 0 &&
                        static_cast<size_t>(tensor.partition_dim) + 2 == tensor.shape.size();
        if (!made_here && !up_front) return std::nullopt;
        if (!(tensor.shape.back() == IExpr(n))) return std::nullopt;
        if (made_here && tensor.shape.size() != 2) return std::nullopt;
        p.shrunk.insert(t);
      }
      if (is_declaration(r.op()) && r.op().dst && k.tensor(r.op().dst->tensor).shape.size() == 2 &&
          k.tensor(r.op().dst->tensor).shape[1] == IExpr(n) && k.tensor(r.op().dst->tensor).on_chip())
        p.shrunk.insert(r.op().dst->tensor);
    }
    // Tiles that shrink are accessed only a whole row at a time (a loop of the region walking
    // the row in pieces would walk past the chunk).
    for (const auto& r : an.ops) {
      if (!region_ops.count(&r.op())) continue;
      std::vector<const Access*> all = reads(r.op());
      for (const Access* w : writes(r.op())) all.push_back(w);
      for (const Access* a : all)
        if (p.shrunk.count(storage_of(k, a->tensor)) && !row_dim(*a, n)) return std::nullopt;
    }
    // A buffer declared up front must be written by the region before it reads it, or be an
    // accumulator zeroed by its declaration (then every chunk zeroes it first).
    for (int t : p.shrunk) {
      bool up_front = true;
      for (const auto& r : an.ops)
        if (region_ops.count(&r.op()) && is_declaration(r.op()) && r.op().dst && r.op().dst->tensor == t) up_front = false;
      if (!up_front) continue;
      for (const auto& r : an.ops) {
        if (!region_ops.count(&r.op())) continue;
        bool reads_t = false, writes_t = false;
        for (const Access* x : reads(r.op())) reads_t = reads_t || storage_of(k, x->tensor) == t;
        for (const Access* x : writes(r.op())) writes_t = writes_t || storage_of(k, x->tensor) == t;
        if (!reads_t && !writes_t) continue;
        if (!reads_t) break;  // written first
        bool zeroed = false;
        for (const auto& d : an.ops)
          if (is_declaration(d.op()) && d.op().dst && d.op().dst->tensor == t && (d.op().api == "nl.zeros" || d.op().api == "nl.zeros_like"))
            zeroed = true;
        if (!r.op().accumulate || !zeroed || !r.op().dst || r.op().dst->tensor != t) return std::nullopt;
        p.zero.push_back(*r.op().dst);
        break;
      }
    }
    // Tiles that shrink are used only in the region (their declarations up front aside).
    for (const auto& r : an.ops) {
      if (region_ops.count(&r.op()) || is_declaration(r.op())) continue;
      for (const Access* x : reads(r.op()))
        if (p.shrunk.count(storage_of(k, x->tensor))) return std::nullopt;
      for (const Access* x : writes(r.op()))
        if (p.shrunk.count(storage_of(k, x->tensor))) return std::nullopt;
    }
    p.declarations = declarations_to_move(k, block, p);
    return p;
  }

  // Statements of `block` before the region that only declare a tile that shrinks (a tile of the
  // region: checked above, no statement outside the region touches it).
  static std::vector<size_t> declarations_to_move(const Kernel& k, std::vector<Node>& block, const Plan& p) {
    std::vector<size_t> out;
    for (size_t i = 0; i < p.first; ++i) {
      const Node& n = block[i];
      if (n.kind != NodeKind::Stmt || n.frozen || n.ops.size() != 1) continue;
      const Op& op = n.ops[0];
      if (!is_declaration(op) || !op.dst || !p.shrunk.count(op.dst->tensor)) continue;
      if (k.tensor(op.dst->tensor).list_loop >= 0) continue;
      out.push_back(i);
    }
    return out;
  }

  static void apply(Kernel& k, Plan p) {
    std::vector<Node>& block = *p.block;
    // The chunk loop.
    Loop cl;
    cl.id = 0;
    while (k.loops.count(cl.id)) ++cl.id;
    cl.var = fresh_loop_var(k, "chunk");
    cl.kind = p.scans ? LoopKind::Sequential : LoopKind::Affine;
    cl.start = IExpr(0);
    cl.stop = IExpr(p.n / p.chunk);
    k.loops[cl.id] = cl;
    int ch = cl.id;
    int outer = -1;  // the loop around the region
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (&n == &block[p.first]) outer = loops.empty() ? -1 : loops.back();
    });
    // Tiles made in the region are per chunk now; those declared before it keep their place.
    std::set<int> made_in_region;
    for (size_t i = p.first; i <= p.last; ++i) {
      std::vector<Op*> ops;
      ops_of(block[i], ops);
      for (Op* op : ops) {
        if (op->result >= 0) made_in_region.insert(op->result);
        if (is_declaration(*op) && op->dst) made_in_region.insert(op->dst->tensor);
      }
    }
    std::set<int> declared_in_chunk;  // declarations before the region that move into the chunk loop
    for (size_t i : p.declarations) declared_in_chunk.insert(block[i].ops[0].dst->tensor);
    for (int t : p.shrunk) {
      Tensor& tensor = k.tensor(t);
      tensor.shape.back() = IExpr(p.chunk);
      if (tensor.scope_loop == outer && (made_in_region.count(t) || declared_in_chunk.count(t))) tensor.scope_loop = ch;
    }
    // Block buffers declared up front elsewhere (the published style) get a block per chunk.
    std::set<int> chunk_blocks = per_chunk_blocks(k, p, declared_in_chunk, made_in_region);
    // A zeroed accumulator declared in the chunk loop, or with a block per chunk, starts every
    // chunk from zero by itself.
    std::erase_if(p.zero, [&](const Access& a) { return declared_in_chunk.count(a.tensor) || chunk_blocks.count(a.tensor); });
    // Scan carries: one column per scan and iteration of the loop around it in the region.
    std::vector<Node> carry_decls;
    auto chunk_access = [&](Access& a) {
      auto d = row_dim(a, p.n);
      if (!d) return false;
      DimIndex& di = a.dims[static_cast<size_t>(*d)];
      di.terms[0].size = IExpr(p.chunk);
      if (!p.shrunk.count(storage_of(k, a.tensor))) di.start = di.start + IExpr::var(ch) * p.chunk;
      return true;
    };
    std::vector<Node> inside, before;
    for (size_t i = p.first; i <= p.last; ++i) {
      bool stays = std::find(p.before.begin(), p.before.end(), i) != p.before.end();
      Node& node = block[i];
      if (stays) {
        before.push_back(std::move(node));
        continue;
      }
      if (node.kind == NodeKind::Meta && node.meta == MetaKind::View) continue;  // written out in the accesses
      std::vector<Node*> stmts;
      std::function<void(Node&, std::vector<int>)> walk = [&](Node& x, std::vector<int> loops) {
        bool changed = false;
        for (auto& op : x.ops) {
          if (op.dst && chunk_access(*op.dst)) op.dst_origin = nullptr, changed = true;
          for (auto& a : op.args) {
            if (a.value.kind == Operand::Kind::Tile && chunk_access(a.value.access)) a.value.origin = nullptr, changed = true;
            if (a.name == "shape" && a.value.kind == Operand::Kind::Shape && a.value.shape.size() == 2 &&
                a.value.shape[1] == IExpr(p.n)) {
              a.value.shape[1] = IExpr(p.chunk);
              a.value.origin = nullptr;
              changed = true;
            }
          }
          if (op.dst && is_declaration(op) && p.shrunk.count(op.dst->tensor)) {
            op.dst = whole_of(k, op.dst->tensor);
            changed = true;
          }
        }
        if (changed) x.dirty = true;
        if (x.kind == NodeKind::Loop) loops.push_back(x.loop);
        // Views of whole rows in inner loops go too: the accesses through them are written out.
        std::erase_if(x.body, [&](const Node& b) {
          return b.kind == NodeKind::Meta && b.meta == MetaKind::View && b.view && row_dim(*b.view, p.n).has_value();
        });
        for (auto& b : x.body) walk(b, loops);
        // Scans: start from the carry, leave the last column there.
        for (size_t j = 0; j < x.body.size(); ++j) {
          Node& s = x.body[j];
          if (s.kind != NodeKind::Stmt || s.ops.empty() || s.ops.back().cls != OpClass::Scan) continue;
          std::vector<int> inner = loops;
          insert_carry(k, p, x.body, j, inner, carry_decls, outer);
          ++j;
        }
      };
      Node holder;  // a scan directly in the region gets its carry like one in a loop of it
      holder.kind = NodeKind::Meta;
      holder.body.push_back(std::move(node));
      walk(holder, {});
      for (auto& x : holder.body) inside.push_back(std::move(x));
    }
    // Declarations up front of buffers that shrank declare the new shape.
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (auto& op : n.ops) {
        if (!is_declaration(op) || !op.dst || !p.shrunk.count(op.dst->tensor)) continue;
        const Tensor& t = k.tensor(op.dst->tensor);
        op.dst = whole_of(k, t.id);
        if (Arg* s = op.arg("shape"); s && s->value.kind == Operand::Kind::Shape) s->value.shape = t.shape, s->value.origin = nullptr;
        n.dirty = true;
      }
    });
    // Accumulators zeroed up front start every chunk from zero.
    for (auto it = p.zero.rbegin(); it != p.zero.rend(); ++it) {
      Op zero;
      zero.api = "assign";
      zero.cls = OpClass::Copy;
      zero.engine = Engine::Vector;
      zero.dst = *it;
      chunk_access(*zero.dst);
      zero.args = {arg("src", number_operand(0))};
      inside.insert(inside.begin(), new_statement(k, {zero}));
    }
    // The declarations that belong to the chunk loop open its body (their shapes are the chunk's
    // now, above); their places before the region are removed below.
    std::vector<Node> moved;
    for (size_t i : p.declarations) moved.push_back(std::move(block[i]));
    inside.insert(inside.begin(), std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()));
    Node loop;
    loop.kind = NodeKind::Loop;
    loop.id = k.next_node++;
    loop.loop = ch;
    loop.dirty = true;
    loop.body = std::move(inside);
    std::vector<Node> replaced;
    for (auto& x : before) replaced.push_back(std::move(x));
    for (auto& x : carry_decls) replaced.push_back(std::move(x));
    replaced.push_back(std::move(loop));
    block.erase(block.begin() + static_cast<long>(p.first), block.begin() + static_cast<long>(p.last) + 1);
    block.insert(block.begin() + static_cast<long>(p.first), std::make_move_iterator(replaced.begin()),
                 std::make_move_iterator(replaced.end()));
    for (auto it = p.declarations.rbegin(); it != p.declarations.rend(); ++it)  // all before p.first
      block.erase(block.begin() + static_cast<long>(*it));
    add_chunk_blocks(k, chunk_blocks, ch, outer);
  }

  // Shrunk block buffers (block dims before the partition dim) declared outside the region's
  // block: each chunk writes them before reading them (make_plan), so one block per chunk is the
  // storage a tile declared in the chunk loop has, in the buffer's own style.
  static std::set<int> per_chunk_blocks(const Kernel& k, const Plan& p, const std::set<int>& declared_in_chunk,
                                        const std::set<int>& made_in_region) {
    std::set<int> out;
    for (int t : p.shrunk) {
      const Tensor& tensor = k.tensor(t);
      if (declared_in_chunk.count(t) || made_in_region.count(t) || tensor.role != TensorRole::Buffer ||
          tensor.partition_dim < 1 || tensor.list_loop >= 0)
        continue;
      bool viewed = false;
      for (const auto& other : k.tensors) viewed = viewed || (other.id != t && storage_of(k, other.id) == t);
      if (!viewed) out.insert(t);
    }
    return out;
  }

  // Adds the chunk loop's block dim to the buffers `tensors`, after the block dims indexed by the
  // loops around the chunk loop (`v7[i0, 0]` -> `v7[i0, chunk, 0]`).
  static void add_chunk_blocks(Kernel& k, const std::set<int>& tensors, int ch, int outer) {
    if (tensors.empty()) return;
    std::set<int> around;  // the loops enclosing the chunk loop
    for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) {
      if (n.kind == NodeKind::Loop && n.loop == ch) around.insert(loops.begin(), loops.end());
    });
    (void)outer;
    auto by_outer_loops = [&](const DimIndex& d) {
      auto vars = d.start.vars();
      return d.terms.empty() && !vars.empty() &&
             std::all_of(vars.begin(), vars.end(), [&](int v) { return around.count(v) > 0; });
    };
    int64_t chunks = *k.loops.at(ch).trip();
    for (int t : tensors) {
      // Where the new dim goes: after the leading block dims every access indexes by outer loops.
      size_t at = static_cast<size_t>(k.tensor(t).partition_dim);
      for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
        for (auto& op : n.ops) {
          std::vector<Access*> accesses;
          if (op.dst && op.dst->tensor == t && !is_declaration(op)) accesses.push_back(&*op.dst);
          for (auto& a : op.args)
            if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) accesses.push_back(&a.value.access);
          for (Access* a : accesses) {
            size_t lead = 0;
            while (lead < at && by_outer_loops(a->dims[lead])) ++lead;
            at = lead;
          }
        }
      });
      Tensor& tensor = k.tensor(t);
      tensor.shape.insert(tensor.shape.begin() + static_cast<long>(at), IExpr(chunks));
      tensor.partition_dim += 1;
      for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
        for (auto& op : n.ops) {
          bool changed = false;
          if (op.dst && op.dst->tensor == t && is_declaration(op)) {
            op.dst = whole_of(k, t);
            if (Arg* s = op.arg("shape"); s && s->value.kind == Operand::Kind::Shape) s->value.shape = tensor.shape, s->value.origin = nullptr;
            changed = true;
          } else if (op.dst && op.dst->tensor == t) {
            op.dst->dims.insert(op.dst->dims.begin() + static_cast<long>(at), DimIndex{IExpr::var(ch), {}});
            op.dst_origin = nullptr;
            changed = true;
          }
          for (auto& a : op.args)
            if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) {
              a.value.access.dims.insert(a.value.access.dims.begin() + static_cast<long>(at), DimIndex{IExpr::var(ch), {}});
              a.value.origin = nullptr;
              changed = true;
            }
          if (changed) n.dirty = true, n.patch.clear();
        }
      });
    }
  }

  // The scan at body[j] (inside the region's loops `loops`, outermost first) reads its start from
  // a carry column and writes its last column back.
  static void insert_carry(Kernel& k, const Plan& p, std::vector<Node>& body, size_t j, const std::vector<int>& loops,
                           std::vector<Node>& decls, int outer) {
    Op& scan = body[j].ops.back();
    Arg* init = scan.arg("initial");
    if (!init || init->value.kind != Operand::Kind::Number) return;
    // One column per iteration of the innermost region loop around the scan (a state loop).
    int64_t columns = 1;
    int l = -1;
    if (!loops.empty()) {
      l = loops.back();
      auto trip = k.loops.at(l).trip();
      columns = trip ? *trip : 1;
    }
    const Tensor& h = k.tensor(scan.dst->tensor);
    IExpr parts = h.shape[static_cast<size_t>(h.partition_dim)];
    Tensor carry;
    carry.name = [&] {
      std::set<std::string> used;
      for (const auto& t : k.tensors) used.insert(t.name);
      std::string v = "scan_carry";
      for (int i = 2; used.count(v); ++i) v = fmt::format("scan_carry{}", i);
      return v;
    }();
    carry.role = TensorRole::Buffer;
    carry.memory = Memory::Sbuf;
    carry.shape = {parts, IExpr(columns)};
    carry.dtype = "float32";
    carry.partition_dim = 0;
    carry.scope_loop = outer;
    int cid = add_tensor(k, std::move(carry));
    Access col;
    col.tensor = cid;
    col.dims = {{IExpr(0), {{0, parts, 1}}}, {l >= 0 ? IExpr::var(l) : IExpr(0), {{1, IExpr(1), 1}}}};
    // carry = nl.zeros((P, columns)) before the chunk loop.
    Op zeros = zeros_declaration(k, cid, Memory::Sbuf);
    decls.push_back(new_statement(k, {zeros}));
    init->value = tile_operand(col);
    body[j].dirty = true;
    // carry[:, l] = h[:, chunk - 1]
    Op keep;
    keep.api = "assign";
    keep.cls = OpClass::Copy;
    keep.engine = Engine::Vector;
    keep.dst = col;
    Operand last = tile_operand(*scan.dst);
    for (auto& d : last.access.dims)
      for (auto& t : d.terms)
        if (t.axis == 1) d.start = d.start + IExpr(p.chunk - 1), t.size = IExpr(1);
    keep.args = {arg("src", last)};
    body.insert(body.begin() + static_cast<long>(j) + 1, new_statement(k, {keep}));
  }
};

}  // namespace

std::unique_ptr<Transform> make_chunk_rows() { return std::make_unique<ChunkRows>(); }

}  // namespace loopnest
