// A selective scan written with its state loop outermost becomes a pipelined scan, in one move:
//   for cb:                                         for cb:
//     acc = zeros((P, N))                             carry = zeros((P, S))
//     for s in affine_range(S):                       for t in sequential_range(N // W):
//       carry = zeros((P, 1))                           acc = zeros((P, W))          (in PSUM)
//       for t in sequential_range(N // W):    =>        for s in affine_range(S):
//         h = scan(..., initial=carry)                    h = scan(..., initial=carry[:, s])
//         carry = h[:, W-1:W]                             carry[:, s] = h[:, W-1:W]
//         acc[:, W*t:W*t+W] += h * c_row                  acc[:, 0:W] += h * c_row
//     store(out[rows, :], acc)                          store(out[rows, W*t:W*t+W], acc)
// A full-row accumulator (7168 fp32 columns: 28 KiB per partition) fits no PSUM bank, so every
// accumulation is a Vector Engine add of two SBUF operands at 2N (docs/simulator.md); its window
// fits one, where the add reads PSUM at N (psum_accumulate). The window needs the chunk loop
// outside the state loop, which the carry declared inside the state loop forbids as written (the
// nest is not perfect, and one carry serves every state). Each step alone is no faster (held-out
// author56: 1.495 ms; expanded, swapped and cut 1.567 ms; with PSUM 1.381 ms; jam_rows after it
// 1.170 ms), so a search keeping the faster kernels never takes the second step: one move.
//
// Steps, each on the form the last one printed and lifted again (reprinted), each legal from the
// dependences on that form:
//   1. expansion: the state loop L's body is declarations of buffers declared in it (a fill of the
//      whole buffer with a number may follow: `nl.zeros`, `nisa.memset`) and then one loop T. Each
//      such buffer gets one column block per iteration of L (its last dim times L's trip), its
//      declaration and fills move before L (a fill of the wider buffer writes every block what the
//      iteration's own fill wrote it), and every access in T takes the iteration's block. Legal
//      when no access in T uses L's variable, each iteration reads only what it wrote before
//      (privatize.h's coverage rules, an initializing declaration counting as a write), nothing
//      outside L touches the buffer, and the wider buffer fits SBUF beside the other tiles. The
//      carry's chain over T stays in order: its accesses keep their order within the iteration.
//   2. interchange_loops of L with T (its own dependence test: no dependence of direction (<, >)).
//   3. the window: a buffer A declared (and filled with a number) in the block holding T, before
//      it, whose accesses in T all lie in `W*t + [0, W)` on A's last dim (W * trip(T) = that dim,
//      T from 0 by 1: the windows tile the row exactly, one per iteration), read after T only by
//      the store that directly follows T, which writes it whole to HBM without mask: A is declared
//      (and filled) at the top of T as a (.., W) tile, its accesses lose `W*t`, and the store moves
//      to the end of T's body writing the window's columns. Nothing in T touches the store's
//      destination, so storing each window as it completes writes what the one store wrote.
//   4. psum_accumulate on the window, when it offers a site in T (the site says psum=yes|no).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/privatize.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool docstring(const Node& n) { return n.kind == NodeKind::Meta && n.meta == MetaKind::Docstring; }

// A fill of buffer `t` with a number: a declaration that zeroes (`nl.zeros`) or a memset of the
// whole buffer, unmasked.
bool fills_whole(const Kernel& k, const Op& op, int t) {
  if (op.cls != OpClass::Memset || !op.dst || op.dst->tensor != t || op.has_mask) return false;
  if (!accesses_whole(k, *op.dst)) return false;
  for (const Arg& a : op.args)
    if (a.value.kind == Operand::Kind::Tile) return false;
  return true;
}

// The statement nodes of `block` before position `end` that declare or fill buffers declared in
// that block only (each op a declaration or a whole fill of one of them); `tensors` the buffers.
// False when another statement stands there.
bool prologue(const Kernel& k, const std::vector<Node>& block, size_t end, int scope, std::vector<int>& tensors,
              std::vector<int>& nodes) {
  for (size_t i = 0; i < end; ++i) {
    const Node& n = block[i];
    if (docstring(n)) continue;
    if (n.kind != NodeKind::Stmt || n.frozen || n.ops.empty()) return false;
    for (const Op& op : n.ops) {
      if (!op.dst) return false;
      int t = op.dst->tensor;
      bool declares = is_declaration(op) && k.tensor(t).scope_loop == scope;
      bool fills = std::count(tensors.begin(), tensors.end(), t) && fills_whole(k, op, t);
      if (!declares && !fills) return false;
      if (declares && !std::count(tensors.begin(), tensors.end(), t)) tensors.push_back(t);
    }
    nodes.push_back(n.id);
  }
  return true;
}

bool plain_buffer(const Kernel& k, int t) {
  const Tensor& x = k.tensor(t);
  if (x.role != TensorRole::Buffer || x.memory != Memory::Sbuf || x.base >= 0 || x.list_loop >= 0 || x.host_list ||
      x.bound_items || !x.list_name.empty())
    return false;
  if (x.shape.empty() || static_cast<size_t>(x.partition_dim) + 1 >= x.shape.size() || !x.shape.back().is_constant())
    return false;
  for (const Tensor& o : k.tensors)
    if (o.id != t && storage_of(k, o.id) == t) return false;  // a view aliases it
  return true;
}

// ---- 1. expansion over the state loop ----

struct Expansion {
  int loop_node = -1, inner_node = -1;
  std::vector<int> tensors, nodes;
};

std::optional<Expansion> plan_expansion(Kernel& k, const Node& ln) {
  if (ln.kind != NodeKind::Loop || ln.frozen) return std::nullopt;
  const Loop& l = k.loops.at(ln.loop);
  auto trip = l.trip();
  if (!trip || *trip < 2 || l.step != 1 || !l.start.is_constant() || l.start.constant() != 0 || l.host_items ||
      l.ordered || l.program)
    return std::nullopt;
  // The body: the prologue, then one loop, then nothing but docstrings.
  size_t inner = ln.body.size();
  for (size_t i = 0; i < ln.body.size(); ++i)
    if (ln.body[i].kind == NodeKind::Loop) {
      inner = i;
      break;
    }
  if (inner == ln.body.size() || ln.body[inner].frozen) return std::nullopt;
  for (size_t i = inner + 1; i < ln.body.size(); ++i)
    if (!docstring(ln.body[i])) return std::nullopt;
  Expansion e{ln.id, ln.body[inner].id, {}, {}};
  if (!prologue(k, ln.body, inner, ln.loop, e.tensors, e.nodes) || e.tensors.empty()) return std::nullopt;
  for (int t : e.tensors) {
    if (!plain_buffer(k, t)) return std::nullopt;
    std::vector<int> loops;
    std::vector<const Node*> conds;
    std::vector<Touch> all, within;
    if (!collect_touches(k, k.body, t, loops, conds, all) || !collect_touches(k, ln.body, t, loops, conds, within))
      return std::nullopt;
    if (all.size() != within.size()) return std::nullopt;  // touched outside L
    std::vector<Touch> values;  // the touches holding values: an uninitialized declaration writes none
    for (const Touch& x : within) {
      if (x.op->cls == OpClass::Alloc) continue;
      if (uses_loop(*x.access, ln.loop)) return std::nullopt;
      if (x.operand && x.operand->number_when && x.operand->number_when->uses(ln.loop)) return std::nullopt;
      values.push_back(x);
    }
    if (!std::any_of(values.begin(), values.end(), [](const Touch& x) { return !x.write; })) return std::nullopt;
    if (!privatizable(k, values)) return std::nullopt;
  }
  return e;
}

void widen_last(Access& a, const IExpr& to) {
  for (AxisTerm& term : a.dims.back().terms) term.size = to;
}

void expand(Kernel& k, const Expansion& e) {
  Node* ln = find_node(k, e.loop_node);
  const int L = ln->loop;
  const int64_t trip = *k.loops.at(L).trip();
  std::vector<int> around = loops_around(k, e.loop_node);
  std::set<std::string> through;
  for (int t : e.tensors) {
    Tensor& x = k.tensor(t);
    const int64_t width = x.shape.back().constant();
    x.shape.back() = x.shape.back() * trip;
    x.scope_loop = around.empty() ? -1 : around.back();
    std::string bound = printable_bound(k, L, {});
    if (x.dim_text.size() != x.shape.size()) x.dim_text.assign(x.shape.size(), {IExpr(), ""});
    x.dim_text.back() = {x.shape.back(), bound.empty() ? "" : width == 1 ? bound : fmt::format("{} * {}", width, bound)};
    const IExpr column = IExpr::var(L) * width;
    Node* inner = find_node(k, e.inner_node);
    for_each_node(inner->body, [&](Node& n, const std::vector<int>&) {
      for (Op& op : n.ops) {
        for (Arg& a : op.args)
          if (a.value.kind == Operand::Kind::Tile && storage_of(k, a.value.access.tensor) == t) {
            a.value.access.dims.back().start = a.value.access.dims.back().start + column;
            if (a.value.origin && a.value.origin->kind == nki::ExprKind::Name)
              through.insert(static_cast<const nki::NameExpr&>(*a.value.origin).id);
            a.value.origin = nullptr;
            n.dirty = true;
          }
        if (op.dst && storage_of(k, op.dst->tensor) == t) {
          op.dst->dims.back().start = op.dst->dims.back().start + column;
          op.dst_origin = nullptr;
          n.dirty = true;
        }
      }
    });
  }
  // The prologue's declarations and fills, widened, move before L.
  std::vector<Node> moved;
  for (auto it = ln->body.begin(); it != ln->body.end();) {
    if (std::count(e.nodes.begin(), e.nodes.end(), it->id)) {
      for (Op& op : it->ops) {
        const IExpr width = k.tensor(op.dst->tensor).shape.back();
        widen_last(*op.dst, width);
        op.dst_origin = nullptr;
        if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape) {
          shape->value.shape.back() = width;
          shape->value.origin = nullptr;
        }
      }
      it->dirty = true;
      moved.push_back(std::move(*it));
      it = ln->body.erase(it);
    } else {
      ++it;
    }
  }
  drop_unread_bindings(k, *ln, through);
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, e.loop_node, at);
  block->insert(block->begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(moved.begin()),
                std::make_move_iterator(moved.end()));
}

// ---- 3. the accumulator cut to its window ----

struct Window {
  int tensor = -1, loop_node = -1, store_node = -1;
  int64_t width = 0;
  std::vector<int> nodes;  // declaration and fills before T
};

// The offset of `d` within T's window `W*t + [0, W)`, when `d` lies in it.
std::optional<IExpr> window_offset(const Kernel& k, const DimIndex& d, int t, int64_t w) {
  IExpr off = d.start - IExpr::var(t) * w;
  if (off.uses(t)) return std::nullopt;
  if (d.terms.size() > 1) return std::nullopt;
  IExpr size = 1;
  if (!d.terms.empty()) {
    const AxisTerm& term = d.terms[0];
    if (!term.affine() || term.stride != 1 || !term.size.is_constant()) return std::nullopt;
    size = term.size;
  }
  auto lo = off.bounds(k.ranges()), hi = (off + size).bounds(k.ranges());
  if (!lo || !hi || lo->first < 0 || hi->second > w) return std::nullopt;
  return off;
}

std::optional<Window> plan_window(Kernel& k, const Node& tn, int a) {
  const Loop& l = k.loops.at(tn.loop);
  auto trip = l.trip();
  if (!trip || *trip < 2 || l.step != 1 || !l.start.is_constant() || l.start.constant() != 0) return std::nullopt;
  if (!plain_buffer(k, a)) return std::nullopt;
  const Tensor& x = k.tensor(a);
  if (x.shape.back().constant() % *trip != 0) return std::nullopt;
  const int64_t w = x.shape.back().constant() / *trip;
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, tn.id, at);
  if (!block) return std::nullopt;
  Window win{a, tn.id, -1, w, {}};
  std::vector<int> tensors;
  // The declaration and fills of A in T's block before T (other statements may stand between).
  for (size_t i = 0; i < at; ++i) {
    const Node& n = (*block)[i];
    bool mine = !n.ops.empty() && std::all_of(n.ops.begin(), n.ops.end(), [&](const Op& op) {
      return op.dst && op.dst->tensor == a && (is_declaration(op) || fills_whole(k, op, a));
    });
    if (mine && n.kind == NodeKind::Stmt && !n.frozen) win.nodes.push_back(n.id);
  }
  if (win.nodes.empty()) return std::nullopt;
  // The store right after T (docstrings aside).
  size_t s = at + 1;
  while (s < block->size() && docstring((*block)[s])) ++s;
  if (s == block->size()) return std::nullopt;
  const Node& store = (*block)[s];
  if (store.kind != NodeKind::Stmt || store.frozen || store.ops.size() != 1) return std::nullopt;
  const Op& st = store.ops[0];
  if ((st.cls != OpClass::Store && st.cls != OpClass::DmaCopy) || !st.dst || st.has_mask || st.accumulate ||
      k.tensor(storage_of(k, st.dst->tensor)).on_chip())
    return std::nullopt;
  std::vector<const Access*> src = reads(st);
  if (src.size() != 1 || src[0]->tensor != a || !accesses_whole(k, *src[0])) return std::nullopt;
  const DimIndex& last = src[0]->dims.back();
  if (last.terms.size() != 1) return std::nullopt;
  int axis = last.terms[0].axis, matched = 0;
  for (const DimIndex& d : st.dst->dims)
    for (const AxisTerm& term : d.terms)
      if (term.axis == axis) matched += d.terms.size() == 1 && term.stride == 1 && term.affine() && term.size == x.shape.back();
  if (matched != 1) return std::nullopt;
  win.store_node = store.id;
  // Every other touch of A lies in T, in the window of its iteration.
  std::vector<int> loops;
  std::vector<const Node*> conds;
  std::vector<Touch> all, within;
  if (!collect_touches(k, k.body, a, loops, conds, all) || !collect_touches(k, tn.body, a, loops, conds, within))
    return std::nullopt;
  for (const Touch& t : all) {
    bool in_t = std::any_of(within.begin(), within.end(), [&](const Touch& y) { return y.op == t.op; });
    if (in_t) continue;
    bool known = t.op == &st;
    for (int id : win.nodes)
      for (const Op& op : find_node(k, id)->ops) known = known || t.op == &op;
    if (!known) return std::nullopt;
  }
  if (within.empty()) return std::nullopt;
  for (const Touch& t : within) {
    if (t.op->cls == OpClass::Alloc) return std::nullopt;
    for (size_t d = 0; d + 1 < t.access->dims.size(); ++d)
      if (uses_loop(t.access->dims[d], tn.loop)) return std::nullopt;
    if (!window_offset(k, t.access->dims.back(), tn.loop, w)) return std::nullopt;
    if (t.operand && t.operand->number_when && t.operand->number_when->uses(tn.loop)) return std::nullopt;
  }
  // Nothing in T touches the store's destination (stored earlier now).
  int dst = storage_of(k, st.dst->tensor);
  bool touched = false;
  for_each_node(tn.body, [&](const Node& n, const std::vector<int>&) {
    for (const Op& op : n.ops) {
      for (const Access* r : reads(op)) touched = touched || storage_of(k, r->tensor) == dst;
      for (const Access* wr : writes(op)) touched = touched || storage_of(k, wr->tensor) == dst;
    }
  });
  if (touched) return std::nullopt;
  return win;
}

bool plain_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The window's width in the author's names: the row's declared width over the chunk loop's
// authored bound (`M // n_mt`), or the chunk's own name where the bound is the row over a name
// (`M // W` -> `W`); "" when either is not authored (the number is printed).
std::string width_text(Kernel& k, const Window& win, int t) {
  std::string bound = printable_bound(k, t, {}), full;
  for (int id : win.nodes)
    for (Op& op : find_node(k, id)->ops)
      if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape && op.dst &&
                                        op.dst->tensor == win.tensor) {
        std::vector<std::string> text = authored_dims(k, shape->value, k.tensor(win.tensor));
        if (text.size() == k.tensor(win.tensor).shape.size()) full = text.back();
      }
  if (full.empty() || bound.empty() || !plain_name(full)) return "";
  const std::string prefix = full + " // ";
  if (bound.rfind(prefix, 0) == 0 && plain_name(bound.substr(prefix.size()))) return bound.substr(prefix.size());
  return plain_name(bound) ? fmt::format("{} // {}", full, bound) : fmt::format("{} // ({})", full, bound);
}

void cut_to_window(Kernel& k, const Window& win) {
  Node* tn = find_node(k, win.loop_node);
  const int t = tn->loop;
  const std::string text = width_text(k, win, t);
  Tensor& x = k.tensor(win.tensor);
  const IExpr full = x.shape.back();
  x.shape.back() = IExpr(win.width);
  x.scope_loop = t;
  if (x.dim_text.size() != x.shape.size()) x.dim_text.assign(x.shape.size(), {IExpr(), ""});
  x.dim_text.back() = {x.shape.back(), text};
  for_each_node(tn->body, [&](Node& n, const std::vector<int>&) {
    for (Op& op : n.ops) {
      for (Arg& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == win.tensor) {
          DimIndex& d = a.value.access.dims.back();
          d.start = *window_offset(k, d, t, win.width);
          a.value.origin = nullptr;
          n.dirty = true;
        }
      if (op.dst && op.dst->tensor == win.tensor) {
        DimIndex& d = op.dst->dims.back();
        d.start = *window_offset(k, d, t, win.width);
        op.dst_origin = nullptr;
        n.dirty = true;
      }
    }
  });
  size_t at = 0;
  std::vector<Node>* block = parent_block(k.body, win.loop_node, at);
  std::vector<Node> head;
  Node store;
  for (auto it = block->begin(); it != block->end();) {
    bool decl = std::count(win.nodes.begin(), win.nodes.end(), it->id) > 0;
    if (!decl && it->id != win.store_node) {
      ++it;
      continue;
    }
    for (Op& op : it->ops) {
      if (op.dst && op.dst->tensor == win.tensor) {
        widen_last(*op.dst, IExpr(win.width));
        op.dst_origin = nullptr;
      }
      if (Arg* shape = op.arg("shape"); shape && shape->value.kind == Operand::Kind::Shape) {
        shape->value.shape.back() = IExpr(win.width);
        shape->value.origin = nullptr;
      }
      if (!decl) {
        for (Arg& a : op.args)
          if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == win.tensor) {
            widen_last(a.value.access, IExpr(win.width));
            a.value.origin = nullptr;
          }
        for (DimIndex& d : op.dst->dims)
          if (d.terms.size() == 1 && d.terms[0].size == full) {
            d.start = d.start + IExpr::var(t) * win.width;
            d.terms[0].size = IExpr(win.width);
          }
        op.dst_origin = nullptr;
      }
    }
    it->dirty = true;
    if (decl) head.push_back(std::move(*it));
    else store = std::move(*it);
    it = block->erase(it);
  }
  tn = find_node(k, win.loop_node);
  tn->body.insert(tn->body.begin(), std::make_move_iterator(head.begin()), std::make_move_iterator(head.end()));
  tn->body.push_back(std::move(store));
}

// ---- the move ----

struct Outcome {
  std::vector<std::string> carries, windows;
  bool psum = false;
};

// The whole move on `k` for the state loop named `var` (loop node `ln` of `k`); false (k spoiled)
// when a step does not apply.
bool pipeline(Kernel& k, int ln_id, Outcome& out) {
  const Node* ln = find_node(k, ln_id);
  auto e = plan_expansion(k, *ln);
  if (!e) return false;
  const std::string state = k.loops.at(ln->loop).var;
  const std::string chunk = k.loops.at(find_node(k, e->inner_node)->loop).var;
  for (int t : e->tensors) out.carries.push_back(k.tensor(t).name);
  expand(k, *e);
  if (other_sbuf_bytes(k, Analysis(k), -1) > sbuf_budget()) return false;
  k = reprinted(k);
  // 2. the state loop inside the chunk loop.
  const Transform* swap = find_transform("interchange_loops");
  const Node* sn = loop_node(k, loop_named(k, state));
  if (!swap || !sn) return false;
  bool swapped = false;
  for (const Site& s : swap->find(k))
    if (s.node == sn->id) {
      swap->apply(k, s);
      swapped = true;
      break;
    }
  if (!swapped) return false;
  k = reprinted(k);
  // 3. the windows.
  for (;;) {
    const Node* tn = loop_node(k, loop_named(k, chunk));
    if (!tn) return false;
    std::optional<Window> win;
    for (const Tensor& x : k.tensors)
      if (!win) win = plan_window(k, *tn, x.id);
    if (!win) break;
    out.windows.push_back(k.tensor(win->tensor).name);
    cut_to_window(k, *win);
    k = reprinted(k);
  }
  if (out.windows.empty()) return false;
  // 4. the windows in PSUM.
  if (const Transform* psum = find_transform("psum_accumulate")) {
    int tl = loop_named(k, chunk);
    for (const Site& s : psum->find(k)) {
      std::vector<int> around = loops_around(k, s.node);
      if (!std::count(around.begin(), around.end(), tl)) continue;
      try {
        Kernel after = k;
        psum->apply(after, s);
        k = reprinted(after);
        out.psum = true;
      } catch (const TransformError&) {
      }
      break;
    }
  }
  return true;
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "`" : ", `") + n + "`";
  return s;
}

class PipelineScan : public Transform {
 public:
  std::string name() const override { return "pipeline_scan"; }
  std::string description() const override {
    return "turn a state loop outermost around a chunk loop into a pipelined scan: its carry expanded per state, the "
           "state loop inside the chunk loop, the full-row accumulator cut to the chunk's window (and kept in PSUM)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    for (int id : open_loop_ids(k)) {
      const Node* ln = find_node(k, id);
      const std::optional<Expansion> e = ln ? plan_expansion(k, *ln) : std::nullopt;
      if (!e) continue;
      Kernel trial = k;
      Outcome out;
      try {
        if (!pipeline(trial, id, out)) continue;
      } catch (const TransformError&) {
        continue;
      }
      // Anchored at the chunk loop's first operation: the prologue differs by style (a zeroing
      // declaration, a declaration and a memset), the chunk loop's body does not.
      Analysis an(k);
      const Node* inner = find_node(k, e->inner_node);
      const OpRef* anchor = first_op_in(an, inner->loop);
      if (!anchor) continue;
      const std::string state = k.loops.at(ln->loop).var;
      Site s = make_site(k, an, *anchor,
                         fmt::format("give each iteration of `for {}` its own {}, move `for {}` inside the chunk loop and "
                                     "cut {} to the chunk's window, stored per chunk{}",
                                     state, names(out.carries), state, names(out.windows),
                                     out.psum ? " and kept in PSUM" : ""),
                         {{"psum", out.psum ? "yes" : "no"}});
      s.relieves.insert("dve");
      if (sink(s, [&k, id] {
            Outcome o;
            if (!pipeline(k, id, o)) throw TransformError("pipeline_scan: a step no longer applies");
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_pipeline_scan() { return std::make_unique<PipelineScan>(); }

}  // namespace loopnest
