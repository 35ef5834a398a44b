// In-place elementwise results on the form: an elementwise instruction (Vector, Scalar or GpSimd
// engine) whose input tile dies at that instruction writes its result over that input instead of
// into a tile of its own. A row's epilogue (`y_sum = y + z; ...; res = y_sum * g * inv_rms`) then
// holds one row-sized SBUF tile where it held four, so the next row's loads find space at once
// instead of waiting for this row's tiles to be released: the Tensor Engine no longer idles
// between rows (matmul_add_rmsnorm: 2.14 -> 1.72 ms on simulator v2). The compiler's allocator
// gives every tile its own space (trainium-performance.md, SBUF allocation); reusing a dead tile
// is the kernel author's move.
//
// One site per loop (and one for the kernel's top level): every such instruction directly in its
// body, in program order, until none is left (the result of one becomes the dying input of the
// next: `res = y_sum * g * inv_rms` runs in y_sum's tile). A nested call whose input dies
// (`nl.multiply(nl.multiply(y_sum, g), inv)`) becomes a statement of its own.
//
// Legal when, with X the input region and R the result region:
//   - X and R are SBUF tiles of the same dtype and tile shape, X read whole by the instruction,
//     each element of X once (no stride-0 broadcast term);
//   - X is per iteration of the loop L directly holding the instruction: a tile made in L (its
//     scope), or a block of a buffer whose every access indexes one block dim by L's variable;
//   - nothing reads or writes X after the instruction (program order within L's iteration);
//   - the instruction is R's only writer, R is read only after it, inside L, and every read is R
//     exactly (or R and X are whole tiles of the same shape: reads of parts of R read the same
//     parts of X); no name is bound to a view of X or R.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool viewed(const Kernel& k, int t) {
  for (const auto& u : k.tensors)
    if (u.base == t) return true;
  bool named = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    named = named || (n.view && n.view->tensor == t);
    // `carry = h[:, w - 1:w]` of a carried tile (lift_carry.cpp), `carry[s] = h[:, w - 1:w]` of a
    // list's bound item (lift_bound_fresh.cpp): a copy in the form, but the text binds the name (the
    // item) to a view of h, which a later write over h would change under it.
    for (const Op& op : n.ops) {
      const Arg* src = op.api == "assign" ? op.arg("src") : nullptr;
      const bool binding = op.dst_origin && (op.dst_origin->kind == nki::ExprKind::Name ||
                                             (op.dst && k.tensor(op.dst->tensor).bound_items));
      named = named || (src && src->value.kind == Operand::Kind::Tile && src->value.access.tensor == t && binding);
    }
  });
  return named;
}

bool has_identifier(const std::string& text, const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !word(text[at - 1])) && (at + name.size() >= text.size() || !word(text[at + name.size()])))
      return true;
  return false;
}

// A statement after node `after` that is not a tile operation (an assert, a binding, a helper
// call) names `name` in its text: rebinding that name's value elsewhere would leave it stale.
bool named_after(const Kernel& k, int after, const std::string& name) {
  bool passed = false, named = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.id == after) passed = true;
    if (!passed || named || n.id == after) return;
    bool text_only = n.kind == NodeKind::Inline ||
                     (n.kind == NodeKind::Meta && n.meta != MetaKind::Import && n.meta != MetaKind::Docstring &&
                      n.meta != MetaKind::Pass);
    if (!text_only) return;
    std::string text = n.patch;
    if (n.origin && k.module && k.module->file)
      for (uint32_t l = n.origin->span.line; l <= n.origin->span.end_line; ++l) text += "\n" + k.module->file->line_text(l);
    named = has_identifier(text, name);
  });
  return named;
}

int innermost(const OpRef& r) { return r.loops.empty() ? -1 : r.loops.back(); }

bool inside(const OpRef& r, int loop) {
  return loop < 0 || std::find(r.loops.begin(), r.loops.end(), loop) != r.loops.end();
}

// The region `a` is private to one iteration of `loop` (-1: the kernel runs once): a tile made in
// the loop, or a block of a buffer whose every access indexes the same block dim by its variable.
bool per_iteration(const Kernel& k, const Analysis& an, const Access& a, int loop) {
  const Tensor& t = k.tensor(a.tensor);
  if (t.role != TensorRole::Value && t.role != TensorRole::Buffer) return false;
  if (t.list_loop >= 0) return false;
  if (t.scope_loop == loop) {
    for (const auto& r : an.ops) {
      bool touches = false;
      for (const Access* x : reads(r.op())) touches = touches || x->tensor == a.tensor;
      for (const Access* x : writes(r.op())) touches = touches || x->tensor == a.tensor;
      if (touches && !inside(r, loop)) return false;
    }
    return true;
  }
  if (loop < 0 || t.role != TensorRole::Buffer) return false;
  std::optional<size_t> dim;
  for (size_t d = 0; d < a.dims.size() && static_cast<int>(d) < t.partition_dim; ++d)
    if (a.dims[d].terms.empty() && a.dims[d].start == IExpr::var(loop)) dim = d;
  if (!dim) return false;
  for (const auto& r : an.ops) {
    std::vector<const Access*> all = reads(r.op());
    for (const Access* x : writes(r.op())) all.push_back(x);
    if (is_declaration(r.op())) continue;
    for (const Access* x : all) {
      if (x->tensor != a.tensor) continue;
      if (!inside(r, loop) || x->dims.size() <= *dim || !x->dims[*dim].terms.empty() ||
          !(x->dims[*dim].start == IExpr::var(loop)))
        return false;
    }
  }
  return true;
}

// An access reading one element for several of its tile's (a stride-0 term, `u[ip, 255 + 0 * jf]`
// broadcasting a column): written, all of them would land on that one element.
bool repeats_elements(const Access& a) {
  for (const auto& d : a.dims)
    for (const auto& t : d.terms)
      if (t.stride == 0 && !(t.size == IExpr(1))) return true;
  return false;
}

struct Move {
  const OpRef* op = nullptr;
  Access input;   // X: the dying input, which receives the result
  Access result;  // R
  bool twins = false;
};

bool elementwise(const Op& op) {
  if (op.cls != OpClass::Elementwise && op.cls != OpClass::Activation) return false;
  if (op.accumulate || !op.dst) return false;
  if (op.engine != Engine::Vector && op.engine != Engine::Scalar && op.engine != Engine::GpSimd) return false;
  return writes(op).size() == 1;
}

std::optional<Move> legal_move(const Kernel& k, const Analysis& an, const OpRef& r, int loop) {
  const Op& op = r.op();
  if (innermost(r) != loop || r.node->frozen || r.node->kind != NodeKind::Stmt || !elementwise(op)) return std::nullopt;
  // A nested call splits off with the calls it reads: every earlier call of the statement feeds a
  // later one up to this op.
  const auto& ops = r.node->ops;
  for (size_t j = 0; j < r.index; ++j) {
    bool fed = false;
    for (size_t u = j + 1; u <= r.index; ++u)
      for (const Access* x : reads(ops[u])) fed = fed || (ops[j].result >= 0 && x->tensor == ops[j].result);
    if (!fed) return std::nullopt;
  }
  const Access& res = *op.dst;
  const Tensor& rt = k.tensor(res.tensor);
  if (rt.memory != Memory::Sbuf || rt.role == TensorRole::View || rt.dtype.empty() || viewed(k, res.tensor))
    return std::nullopt;
  if (!rt.name.empty() && named_after(k, r.node->id, rt.name)) return std::nullopt;
  Ranges ranges = k.ranges();
  // R: written by this op only; read only after it, inside the loop.
  for (const OpRef* w : an.writers(k, res.tensor))
    for (const Access* x : writes(w->op()))
      if (w != &r && may_overlap_across(k, *x, res, ranges)) return std::nullopt;
  bool whole_r = accesses_whole(k, res);
  bool exact_reads = true;
  for (const OpRef* u : an.readers(k, res.tensor))
    for (const Access* x : reads(u->op())) {
      if (x->tensor != res.tensor || !may_overlap_across(k, *x, res, ranges)) continue;
      // A masked instruction writes only the masked elements: its readers read no others.
      if (u->order <= r.order || !inside(*u, loop) || (op.has_mask && !same_mask(op, u->op()))) return std::nullopt;
      if (u->node->frozen || u->node->kind != NodeKind::Stmt) return std::nullopt;  // printed as written
      exact_reads = exact_reads && *x == res;
    }
  for (const Arg& a : op.args) {
    if (a.value.kind != Operand::Kind::Tile || a.output) continue;
    const Access& in = a.value.access;
    if (in == res || storage_of(k, in.tensor) != in.tensor) continue;
    if (in.tensor == res.tensor && may_overlap_across(k, in, res, ranges)) continue;  // another slot of one buffer only
    const Tensor& it = k.tensor(in.tensor);
    if (it.name.empty()) continue;  // a nested call's result has no name to write through
    if (it.memory != Memory::Sbuf || it.dtype != rt.dtype || (!op.dtype.empty() && op.dtype != it.dtype)) continue;
    if (!(in.tile_shape() == res.tile_shape()) || viewed(k, in.tensor) || repeats_elements(in)) continue;
    if (!per_iteration(k, an, in, loop)) continue;
    bool twins = whole_r && accesses_whole(k, in) && it.shape == rt.shape && it.partition_dim == rt.partition_dim;
    if (!exact_reads && !twins) continue;
    // X dies here: nothing after the op touches it.
    bool dies = true;
    for (const auto& o : an.ops) {
      if (o.order <= r.order || !inside(o, loop)) continue;
      for (const Access* x : reads(o.op())) dies = dies && !(x->tensor == in.tensor && may_overlap_across(k, *x, in, ranges));
      for (const Access* x : writes(o.op())) dies = dies && !(x->tensor == in.tensor && may_overlap_across(k, *x, in, ranges));
    }
    if (!dies) continue;
    return Move{&r, in, res, twins && !exact_reads};
  }
  return std::nullopt;
}

std::optional<Move> first_move(const Kernel& k, const Analysis& an, int loop) {
  for (const auto& r : an.ops)
    if (auto m = legal_move(k, an, r, loop)) return m;
  return std::nullopt;
}

void apply_move(Kernel& k, const Move& m) {
  Op& op = m.op->op();
  int from = m.result.tensor;
  op.dst = m.input;
  op.dst_origin = nullptr;
  op.result = -1;
  m.op->node->dirty = true;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& o : n.ops)
      for (auto& a : o.args) {
        if (a.value.kind != Operand::Kind::Tile || a.output || a.value.access.tensor != from) continue;
        if (m.twins) a.value.access.tensor = m.input.tensor;
        else if (a.value.access == m.result) a.value.access = m.input;
        else continue;
        a.value.origin = nullptr;
        n.dirty = true;
      }
  });
  // The op becomes the last op of a statement of its own, inserted before, with the calls it reads.
  if (m.op->index + 1 < m.op->node->ops.size()) split_leading_ops(k, *m.op->block, m.op->position, m.op->index + 1);
}

class InPlace : public Transform {
 public:
  std::string name() const override { return "in_place"; }
  std::string description() const override {
    return "write elementwise results over an input tile that dies there (no tile of their own): a row's "
           "epilogue holds fewer SBUF tiles, so the next row's loads do not wait for space";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> scopes = open_loop_ids(k);
    scopes.insert(scopes.begin(), -1);
    for (int id : scopes) {
      int loop = -1;
      if (id >= 0) {
        Node* n = find_node(k, id);
        if (!n) continue;
        loop = n->loop;
      }
      Analysis an(k);
      auto m = first_move(k, an, loop);
      if (!m) continue;
      int count = count_moves(k, loop);
      std::string where = loop < 0 ? "the kernel's top level" : "`for " + k.loops.at(loop).var + "`";
      std::string summary = fmt::format("write {} elementwise result{} of {} over the input tile that dies there",
                                        count, count == 1 ? "" : "s", where);
      // Anchored at the loop (its first operation), not at the first instruction it rewrites, which
      // depends on how the style splits a statement into calls.
      std::optional<Site> site = id >= 0 ? make_loop_site(k, an, *find_node(k, id), summary)
                                         : std::optional<Site>(make_site(k, an, *m->op, summary));
      if (!site) continue;
      if (sink(*site, [&k, loop] {
            if (!apply_all(k, loop)) throw TransformError("in_place: the site is no longer legal");
          }))
        return true;
    }
    return false;
  }

 private:
  static int apply_all(Kernel& k, int loop) {
    int n = 0;
    for (; n < 256; ++n) {
      Analysis an(k);
      auto m = first_move(k, an, loop);
      if (!m) break;
      apply_move(k, *m);
    }
    return n;
  }

  static int count_moves(const Kernel& k, int loop) {
    Kernel trial = k;
    return apply_all(trial, loop);
  }
};

}  // namespace

std::unique_ptr<Transform> make_in_place() { return std::make_unique<InPlace>(); }

}  // namespace loopnest
