// PSUM accumulation on the form: an fp32 SBUF accumulator that a loop adds Vector Engine results
// into (`acc += h * c_row`, or `acc = acc + x` written destination-first) is declared in PSUM
// instead. On NC-v2 a fp32 tensor_tensor with both inputs in SBUF streams at 2N cycles, with one
// input in PSUM at N (ISA "Estimated instruction cost"; docs/simulator.md, compute engines): each
// accumulation then costs half. The Mamba tutorial's scan keeps `scanC_accum` in SBUF; after
// chunk_rows and jam_rows the bundled mamba accumulates 2 x 16 [128, 512] fp32 tiles per chunk on a
// Vector Engine busy 96% of the time: 1.3857 -> 1.1959 ms by this move alone.
//
// One site per loop: every accumulator whose first accumulating write that loop holds directly,
// anchored at the first of those writes. An accumulator may move when:
//   - the tensor is declared on chip (nl.ndarray / nl.zeros ... with `buffer=nl.sbuf` or no
//     buffer), fp32, without block dims, no view or list of it, and one tile of it fits one PSUM
//     bank (2 KiB per partition: 512 fp32 columns), so the declaration is a legal PSUM tile;
//   - every write is its declaration or zeroing, an accumulating write (`+=`) of a Vector / Scalar
//     Engine result or of a matmul (whose PSUM result the compiler otherwise copies out and adds
//     into the SBUF tile on the Vector Engine, once per step), a Vector Engine elementwise instruction reading the tensor itself (an
//     in-place update), or another Vector / Scalar Engine result (the sum started from its first
//     term: `if s == 0: acc = h * c`); at least one write accumulates inside a loop (what makes it
//     repeated);
//   - every other read is an `nl.store` (which copies a PSUM tile to SBUF before the DMA), a
//     Vector / Scalar Engine instruction, or a DMA of the whole tile to HBM (`nisa.dma_copy`), which
//     cannot read PSUM (ARCH2; the interpreter refuses it): the move puts a copy to a new SBUF tile
//     before it (`acc_sbuf[...] = acc`, once per accumulation) and the DMA reads that. GpSimd and the
//     Tensor Engine do not read PSUM: such a reader keeps the tile in SBUF.
//   - a zeroing memset is the author's on GpSimd only when written so (`engine=`): nisa.memset
//     without an engine is placed where its destination is reachable.
// A newer-API accumulator with one tile per iteration of a loop along a free dim (`acc =
// nl.ndarray((P, n_ct, MT))`, every access `acc[:, ct, :]`: a state sum kept per channel tile) is
// more than a bank as one tensor but one bank per block; that API has no block dims (nki-language.md
// 12), so the move makes it a list of PSUM tiles, one per block, as an author of that API writes it
// (`acc = [nl.ndarray((P, MT), ..., buffer=nl.psum) for _ in range(n_ct)]`, `acc[ct]`): legal when
// every access but the declaration takes one point of that dim and all of the others.
#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/core.h>

#include "loopnest/scope_text.h"
#include "nki/ast_printer.h"
#include "loopnest/api.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

namespace lim = trn::limits;

bool reads_tensor(const Kernel& k, const Op& op, int t) {
  for (const auto& a : op.args)
    if (a.value.kind == Operand::Kind::Tile && !a.output && storage_of(k, a.value.access.tensor) == t) return true;
  return false;
}

bool vector_or_scalar(const Op& op) {
  return op.engine == Engine::Vector || op.engine == Engine::Scalar;
}

bool computes_on_vector_or_scalar(const Op& op) {
  switch (op.cls) {
    case OpClass::Elementwise:
    case OpClass::Activation:
    case OpClass::Copy:
    case OpClass::Reduce:
    case OpClass::Scan:
      return vector_or_scalar(op);
    default:
      return false;
  }
}

// The declaration's buffer is plain SBUF (or not given): an allocator call (`ncc.sbuf.mod_alloc`)
// places the tile itself, which this move does not rewrite.
bool plain_sbuf_declaration(const Op& op) {
  const Arg* b = op.arg("buffer");
  return !b || (b->value.kind == Operand::Kind::Symbol && b->value.symbol == "buffer:sbuf");
}

// A Python list of fresh tiles made by a comprehension (`accs = [nl.ndarray(...) for _ in
// range(2)]`, the newer API's multi-buffering): each item is a tile of its own, allocated apart,
// so the list moves to PSUM when one item fits a bank.
bool comprehension_list(const Tensor& t) { return t.host_list && t.list_loop < 0 && t.outer_lists.empty(); }

bool viewed_or_listed(const Kernel& k, const Tensor& t) {
  if (!t.list_name.empty() && !comprehension_list(t)) return true;
  for (const auto& u : k.tensors)
    if (u.base == t.id) return true;
  bool named = false;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) { named = named || (n.view && n.view->tensor == t.id); });
  return named;
}

bool inside_loop(const std::vector<int>& loops, int loop) {
  return std::find(loops.begin(), loops.end(), loop) != loops.end();
}

// Whether `a` reads one whole tile of its tensor: one index in each block dim (a list's item,
// `accs[ct]`), every element of the others.
bool whole_item(const Kernel& k, const Access& a) {
  const Tensor& t = k.tensor(a.tensor);
  if (a.dims.size() != t.shape.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (static_cast<int>(d) < t.partition_dim) {
      if (!di.terms.empty()) return false;
      continue;
    }
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].stride != 1 || !di.terms[0].affine() ||
        !(di.terms[0].size == t.shape[d]))
      return false;
  }
  return true;
}

// Bytes per partition of the whole tensor; nullopt when a dim is not constant.
std::optional<int64_t> partition_bytes(const Tensor& t) {
  int64_t bytes = 4;  // fp32
  for (size_t d = static_cast<size_t>(t.partition_dim) + 1; d < t.shape.size(); ++d) {
    if (!t.shape[d].is_constant()) return std::nullopt;
    bytes *= t.shape[d].constant();
  }
  return bytes;
}

// The declaration as its author wrote it with the buffer changed to PSUM (`buffer=nl.sbuf` ->
// `buffer=nl.psum`, or the keyword added), so the diff shows that word only; "" (printed from the
// form) when the statement's text does not show its buffer plainly.
std::string psum_declaration_text(const Kernel& k, const Node& n, bool comprehension = false) {
  if (!n.origin || text_outside_kernel(k, n) || (!comprehension && n.ops.size() != 1) || !k.module || !k.module->file) return "";
  std::string text;
  for (uint32_t l = n.origin->span.line; l <= n.origin->span.end_line; ++l)
    text += (text.empty() ? "" : "\n") + k.module->file->line_text(l);
  text.erase(0, text.find_first_not_of(" \t"));
  static const std::regex buffer(R"((buffer\s*=\s*[A-Za-z_][\w.]*\.)sbuf\b)");
  std::smatch m;
  if (std::regex_search(text, m, buffer)) {
    if (std::regex_search(m.suffix().first, text.cend(), buffer)) return "";  // two of them
    return std::string(text.cbegin(), m[0].first) + m[1].str() + "psum" + std::string(m[0].second, text.cend());
  }
  // A comprehension's last `)` closes its `range(...)`: the keyword must be there to change.
  if (comprehension || text.find("buffer") != std::string::npos) return "";
  size_t close = text.rfind(')');
  auto alias = k.dialect.alias.find("nki.language");
  if (close == std::string::npos || alias == k.dialect.alias.end()) return "";
  return text.substr(0, close) + ", buffer=" + alias->second + ".psum" + text.substr(close);
}

// Before the DMA statement `node_id` reading PSUM accumulator `t` whole: a new SBUF tile of its shape,
// `tile[...] = t` (a Vector Engine copy), and the DMA reading that tile instead.
void copy_out_before(Kernel& k, int t, int node_id, size_t index, const Access& source) {
  std::vector<Node>* block = nullptr;
  size_t position = 0;
  int scope = -1;
  for_each_node(k.body, [&](Node& n, const std::vector<int>& loops) {
    for (std::vector<Node>* b : {&n.body, &n.orelse})
      for (size_t i = 0; i < b->size(); ++i)
        if ((*b)[i].id == node_id) block = b, position = i, scope = n.kind == NodeKind::Loop ? n.loop : (loops.empty() ? -1 : loops.back());
  });
  for (size_t i = 0; i < k.body.size(); ++i)
    if (k.body[i].id == node_id) block = &k.body, position = i, scope = -1;
  if (!block) throw TransformError("psum_accumulate: the DMA reading the accumulator is gone");
  Tensor copy = k.tensor(t);
  copy.name = fresh_loop_var(k, copy.name + "_sbuf");
  copy.label.clear();
  copy.memory = Memory::Sbuf;
  copy.role = TensorRole::Buffer;
  copy.scope_loop = scope;
  copy.dim_text.clear();
  // One item of a list of tiles: the copy is a tile of the item's shape.
  copy.shape.erase(copy.shape.begin(), copy.shape.begin() + copy.partition_dim);
  copy.partition_dim = 0;
  copy.list_name.clear();
  copy.list_loop = -1;
  copy.outer_lists.clear();
  copy.host_list = false;
  const int sbuf = add_tensor(k, std::move(copy));
  Access whole = whole_of(k, sbuf);
  Access from = source;
  Op move;
  move.api = "assign";
  move.cls = OpClass::Copy;
  move.engine = Engine::Vector;
  move.dst = whole;
  Operand src;
  src.kind = Operand::Kind::Tile;
  src.access = from;
  move.args = {arg("src", src)};
  Node assign = new_statement(k, {move});
  Node& reader = (*block)[position];
  Arg* read = reader.ops[index].arg("src");
  read->value.access = whole;
  read->value.origin = nullptr;
  reader.dirty = true;
  reader.patch.clear();
  Node decl = declaration_node(k, sbuf);
  block->insert(block->begin() + static_cast<long>(position), std::move(assign));
  block->insert(block->begin() + static_cast<long>(position), std::move(decl));
}

// Whether `a` takes one point of dim 1 of `t` (P, B, F) and all of dims 0 and 2.
bool one_block(const Tensor& t, const Access& a) {
  if (a.dims.size() != 3 || !a.dims[1].terms.empty()) return false;
  for (size_t d : {size_t{0}, size_t{2}}) {
    const DimIndex& di = a.dims[d];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].stride != 1 || !di.terms[0].affine() ||
        !(di.terms[0].size == t.shape[d]))
      return false;
  }
  return true;
}

// The newer API's accumulator of one bank per block (top of the file): its declaration's node, when
// `t` is one and every access (but the declaration) takes one block whole.
std::optional<int> blocks_of_a_bank(const Kernel& k, const Analysis& an, const Tensor& t) {
  if (!k.dialect.new_api || t.partition_dim != 0 || t.shape.size() != 3 || t.host_list || !t.list_name.empty())
    return std::nullopt;
  if (!t.shape[1].is_constant() || !t.shape[2].is_constant() || t.shape[1].constant() < 2 ||
      4 * t.shape[2].constant() > lim::psum_bank_bytes)
    return std::nullopt;
  // A bank per block beside a bank for each of the kernel's other PSUM tiles (a list's per item):
  // all must fit the PSUM's banks, or the blocks would wait on the Tensor Engine's results.
  int64_t banks = t.shape[1].constant();
  for (const auto& o : k.tensors)
    if (o.id != t.id && o.memory == Memory::Psum && o.role != TensorRole::View)
      banks += o.host_list && !o.shape.empty() && o.shape[0].is_constant() ? o.shape[0].constant() : 1;
  if (banks > lim::psum_num_banks) return std::nullopt;
  int decl = -1;
  for (const auto& r : an.ops) {
    if (is_declaration(r.op())) {
      if (!r.op().dst || r.op().dst->tensor != t.id) continue;
      const auto* as = r.node->origin && r.node->origin->kind == nki::StmtKind::Assign
                           ? static_cast<const nki::AssignStmt*>(r.node->origin)
                           : nullptr;
      const auto* call = as && as->value && as->value->kind == nki::ExprKind::Call
                             ? static_cast<const nki::CallExpr*>(as->value.get())
                             : nullptr;
      const auto* shape = call && !call->args.empty() && call->args[0]->kind == nki::ExprKind::Tuple
                              ? static_cast<const nki::SequenceExpr*>(call->args[0].get())
                              : nullptr;
      if (decl >= 0 || r.node->ops.size() != 1 || r.node->frozen || !shape || shape->elts.size() != 3 ||
          as->targets.size() != 1)
        return std::nullopt;
      decl = r.node->id;
      continue;
    }
    for (const Access* a : reads(r.op()))
      if (storage_of(k, a->tensor) == t.id && (a->tensor != t.id || !one_block(t, *a))) return std::nullopt;
    for (const Access* a : writes(r.op()))
      if (storage_of(k, a->tensor) == t.id && (a->tensor != t.id || !one_block(t, *a))) return std::nullopt;
  }
  if (decl < 0) return std::nullopt;
  return decl;
}

// The accumulator (P, B, F) becomes a list of B PSUM tiles (P, F): the block dim first, every
// access `acc[ct]`, the declaration a comprehension of the author's call without that dim.
void into_list_of_banks(Kernel& k, int t, int decl_id) {
  Node* decl = find_node(k, decl_id);
  const auto& as = static_cast<const nki::AssignStmt&>(*decl->origin);
  const auto& call = static_cast<const nki::CallExpr&>(*as.value);
  const auto& shape = static_cast<const nki::SequenceExpr&>(*call.args[0]);
  std::string args = "(" + nki::print_expr(*shape.elts[0]) + ", " + nki::print_expr(*shape.elts[2]) + ")";
  for (size_t i = 1; i < call.args.size(); ++i) args += ", " + nki::print_expr(*call.args[i]);
  for (const auto& kw : call.keywords) {
    std::string v = nki::print_expr(*kw.value);
    if (kw.name == "buffer") v = std::regex_replace(v, std::regex(R"(\bsbuf$)"), "psum");
    args += ", " + (kw.name.empty() ? "**" : kw.name + "=") + v;
  }
  std::string text = fmt::format("{} = [{}({}) for _ in range({})]", nki::print_expr(*as.targets[0]),
                                 nki::print_expr(*call.func), args, nki::print_expr(*shape.elts[1]));
  Tensor& x = k.tensor(t);
  x.shape = {x.shape[1], x.shape[0], x.shape[2]};
  x.partition_dim = 1;
  x.host_list = true;
  x.list_name = x.name;  // printed `acc[ct]`, as the lift names a comprehension's list
  x.dim_text.clear();
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    bool touched = false;
    for (auto& op : n.ops) {
      if (is_declaration(op)) continue;
      if (op.dst && op.dst->tensor == t) {
        std::swap(op.dst->dims[0], op.dst->dims[1]);
        op.dst_origin = nullptr;
        touched = true;
      }
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.access.tensor == t) {
          std::swap(a.value.access.dims[0], a.value.access.dims[1]);
          a.value.origin = nullptr;
          touched = true;
        }
    }
    if (touched) {
      n.dirty = true;
      n.patch.clear();
    }
  });
  Node item = *decl;
  Op& op = item.ops[0];
  op.dst = whole_of(k, t);
  op.dst_origin = nullptr;
  if (Arg* sh = op.arg("shape"); sh && sh->value.kind == Operand::Kind::Shape)
    sh->value.shape = {x.shape[1], x.shape[2]};
  item.dirty = true;  // printed by the comprehension's text
  item.patch = text;
  Node list;
  list.kind = NodeKind::Inline;
  list.id = k.next_node++;
  list.helper = kComprehensionHelper;
  list.origin = decl->origin;
  list.dirty = true;
  list.patch = text;
  list.body.push_back(std::move(item));
  freeze(list);
  *decl = std::move(list);
}

class PsumAccumulate : public Transform {
 public:
  std::string name() const override { return "psum_accumulate"; }
  std::string description() const override {
    return "keep an fp32 accumulator of Vector Engine results in PSUM: each accumulation streams at N, not 2N";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    // The accumulators, grouped by the loop directly holding their first accumulating write: the
    // rows a jam made accumulate side by side, and move together (one site, as for in_place).
    struct Candidate {
      int tensor;
      const OpRef* accumulating;
      std::vector<std::pair<Node*, size_t>> declarations;
      std::vector<std::pair<int, size_t>> dma_readers;  // (node id, op index)
      std::vector<Access> dma_sources;                  // what each of them reads
      std::vector<int> comprehensions;                  // Inline nodes declaring the list's items
      int split = -1;  // the declaration of a newer-API accumulator of a bank per block (made a list first)
    };
    std::map<int, std::vector<Candidate>> by_loop;
    std::vector<int> loop_order;
    for (const Tensor& t : k.tensors)
      if (auto c = candidate(k, an, t)) {
        int loop = c->accumulating->loops.back();
        if (!by_loop.count(loop)) loop_order.push_back(loop);
        by_loop[loop].push_back(
            Candidate{t.id, c->accumulating, c->declarations, c->dma_readers, c->dma_sources, c->comprehensions,
                      c->split});
      }
    for (int loop : loop_order) {
      const std::vector<Candidate>& group = by_loop[loop];
      std::string names;
      for (const auto& c : group) names += (names.empty() ? "`" : ", `") + k.tensor(c.tensor).name + "`";
      bool of_matmuls = std::all_of(group.begin(), group.end(),
                                    [](const Candidate& c) { return c.accumulating->op().cls == OpClass::Matmul; });
      Site s = make_site(k, an, *group.front().accumulating,
                         fmt::format("keep the fp32 accumulator{} {} in PSUM ({})", group.size() > 1 ? "s" : "", names,
                                     of_matmuls ? "the Tensor Engine accumulates: no copy and add per matmul"
                                                : "each accumulation at N, not 2N"));
      for (const auto& c : group) {
        const Op& acc_op = c.accumulating->op();
        s.relieves.insert(to_string(acc_op.cls == OpClass::Matmul ? Engine::Vector : acc_op.engine));
      }
      if (sink(s, [&k, group] {
            for (const auto& c : group)
              if (c.split >= 0) into_list_of_banks(k, c.tensor, c.split);
            for (const auto& c : group)
              if (k.tensor(c.tensor).partition_dim != 0 && c.split < 0) contract_block_buffer(k, c.tensor, true);
            for (const auto& c : group) {
              k.tensor(c.tensor).memory = Memory::Psum;
              for_each_node(k.body, [&](Node& node, const std::vector<int>&) {
                if (std::find(c.comprehensions.begin(), c.comprehensions.end(), node.id) != c.comprehensions.end()) {
                  node.patch = psum_declaration_text(k, node, true);
                  node.dirty = true;
                }
                for (auto& op : node.ops) {
                  const ApiSpec* spec = find_api(op.api);
                  if (!spec || !spec->creates || !op.dst || op.dst->tensor != c.tensor) continue;
                  if (Arg* b = op.arg("buffer")) b->value = symbol("buffer:psum");
                  else op.args.push_back(arg("buffer", symbol("buffer:psum")));
                  // As written, with the one word changed; a declaration the contraction rewrote is
                  // printed from the form.
                  if (!node.dirty) node.patch = psum_declaration_text(k, node);
                  node.dirty = true;
                }
              });
              for (size_t r = 0; r < c.dma_readers.size(); ++r) {
                Access source = c.dma_sources[r];
                if (c.split >= 0) std::swap(source.dims[0], source.dims[1]);  // the list's item
                copy_out_before(k, c.tensor, c.dma_readers[r].first, c.dma_readers[r].second, source);
              }
            }
          }))
        return true;
    }
    return false;
  }

 private:
  struct Found {
    const OpRef* accumulating = nullptr;
    std::vector<std::pair<Node*, size_t>> declarations;
    std::vector<std::pair<int, size_t>> dma_readers;
    std::vector<Access> dma_sources;
    std::vector<int> comprehensions;
    int split = -1;
  };

  // Whether `t` may move to PSUM (the conditions above): its first accumulating write in a loop and
  // its declarations.
  static std::optional<Found> candidate(Kernel& k, const Analysis& an, const Tensor& t) {
    if (t.role != TensorRole::Buffer || t.memory != Memory::Sbuf || t.dtype != "float32") return std::nullopt;
    if (t.shape.size() < static_cast<size_t>(t.partition_dim) + 2 || viewed_or_listed(k, t)) return std::nullopt;
    // A block buffer (legacy style: every chunk's accumulator declared up front) moves once each
    // iteration's block is a tile of its own (contract.cpp): one block, not the buffer, must fit.
    const bool listed = comprehension_list(t);
    if (t.partition_dim != 0 && !listed && !contract_block_buffer(k, t.id, false)) return std::nullopt;
    const IExpr& p = t.shape[static_cast<size_t>(t.partition_dim)];
    if (!p.is_constant() || p.constant() > lim::pmax) return std::nullopt;
    auto bytes = partition_bytes(t);
    std::optional<int> split;
    if (bytes && *bytes > lim::psum_bank_bytes && !listed) split = blocks_of_a_bank(k, an, t);
    if (!bytes || (*bytes > lim::psum_bank_bytes && !split)) return std::nullopt;
    // The items of a comprehension list are declared inside its Inline node (frozen: printed as
    // written): that statement gets the new buffer, and a zeroing there (`nl.zeros`) is a write.
    std::map<int, int> item_of;  // item node id -> comprehension node id
    if (listed)
      for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
        if (n.kind == NodeKind::Inline && n.helper.find(kComprehensionHelper) != std::string::npos)
          for_each_node(n.body, [&](Node& item, const std::vector<int>&) { item_of[item.id] = n.id; });
      });
    Found f;
    f.split = split.value_or(-1);
    std::vector<const OpRef*> plain_writes;
    auto writers = an.writers(k, t.id);
    for (const OpRef* w : writers) {
      const Op& op = w->op();
      if (w->node->frozen && !item_of.count(w->node->id)) return std::nullopt;
      if (is_declaration(op) || op.cls == OpClass::Memset) {
        const ApiSpec* spec = find_api(op.api);
        if (spec && spec->creates) {
          continue;  // found below with the declarations that write nothing (nl.ndarray)
        } else if (!vector_or_scalar(op) && op.engine_explicit) {
          return std::nullopt;  // a memset the author put on GpSimd (nisa.memset without engine=
                                // is placed where its destination is reachable)
        }
        continue;
      }
      // `acc += nl.matmul(...)` into SBUF (a first version's matmul): the compiler copies each
      // PSUM result out and adds it on the Vector Engine (language.md, Tensor Engine results into
      // SBUF); in PSUM the Tensor Engine accumulates it itself.
      bool accumulates = op.accumulate && (computes_on_vector_or_scalar(op) || op.cls == OpClass::Matmul);
      bool in_place = op.cls == OpClass::Elementwise && op.engine == Engine::Vector && reads_tensor(k, op, t.id);
      // Any other Vector / Scalar Engine write (`if s == 0: acc = h * c`, the sum started from its
      // first term rather than from zero): the move changes where the tile lives, not what is
      // written into it, and both engines write PSUM. A GpSimd writer keeps it in SBUF.
      if (!accumulates && !in_place && !computes_on_vector_or_scalar(op)) return std::nullopt;
      if (!accumulates && !in_place) {
        plain_writes.push_back(w);
        continue;
      }
      if (!f.accumulating && !w->loops.empty()) f.accumulating = w;
    }
    // ... but only as a start: before the accumulating loop, or in a branch of it (the first
    // iteration's). A plain write in every iteration of that loop (`nbias = reduce(...)` then
    // `nbias = nbias * c`) makes no sum across its iterations.
    if (f.accumulating && !plain_writes.empty()) {
      std::set<int> in_branch;
      for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
        if (n.kind != NodeKind::If) return;
        for (const auto* b : {&n.body, &n.orelse})
          for_each_node(*b, [&](const Node& x, const std::vector<int>&) { in_branch.insert(x.id); });
      });
      const int loop = f.accumulating->loops.back();
      for (const OpRef* w : plain_writes)
        if (inside_loop(w->loops, loop) && !in_branch.count(w->node->id)) return std::nullopt;
    }
    bool plain = true;
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      for (size_t i = 0; i < n.ops.size(); ++i) {
        const ApiSpec* spec = find_api(n.ops[i].api);
        if (!spec || !spec->creates || !n.ops[i].dst || n.ops[i].dst->tensor != t.id) continue;
        auto in_list = item_of.find(n.id);
        if (in_list != item_of.end()) {
          const Node* decl = find_node(k, in_list->second);
          plain = plain && plain_sbuf_declaration(n.ops[i]) && decl && !psum_declaration_text(k, *decl, true).empty();
          if (std::find(f.comprehensions.begin(), f.comprehensions.end(), in_list->second) == f.comprehensions.end())
            f.comprehensions.push_back(in_list->second);
        } else {
          plain = plain && plain_sbuf_declaration(n.ops[i]) && !n.frozen;
        }
        f.declarations.push_back({&n, i});
      }
    });
    if (!plain || !f.accumulating || f.declarations.empty()) return std::nullopt;
    for (const OpRef* r : an.readers(k, t.id)) {
      if (std::find(writers.begin(), writers.end(), r) != writers.end()) continue;
      const Op& op = r->op();
      if (r->node->frozen) return std::nullopt;
      if (op.api == "nl.store" || computes_on_vector_or_scalar(op)) continue;
      // A DMA of the whole accumulator out of the kernel (`nisa.dma_copy(dst=out[...], src=acc)`):
      // DMA does not read PSUM, so the move copies the tile to SBUF on the Vector Engine first (once
      // per accumulation, where nl.store does it itself).
      const Operand* src = operand(op, "src");
      bool whole_dma = (op.cls == OpClass::Store || op.cls == OpClass::DmaCopy) && op.dst && k.tensor(op.dst->tensor).memory == Memory::Hbm && src &&
                       src->kind == Operand::Kind::Tile && src->access.tensor == t.id &&
                       (split ? one_block(t, src->access) : whole_item(k, src->access));
      if (!whole_dma || r->node->kind != NodeKind::Stmt || r->node->ops.size() != 1) return std::nullopt;
      f.dma_readers.push_back({r->node->id, r->index});
      f.dma_sources.push_back(src->access);
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Transform> make_psum_accumulate() { return std::make_unique<PsumAccumulate>(); }

}  // namespace loopnest
