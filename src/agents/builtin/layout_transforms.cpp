// Transformations of the data layout of elementwise / memory-bound loops:
//  - fold_partitions: a column loop whose tiles span a fixed sub-range of rows (e.g. the two
//    halves of RoPE's D=128 rows, 64 partitions each) folds half of its columns into the unused
//    partitions, through HBM views `T.reshape((2 * rows, cols // 2))`. Every DMA then spans twice
//    the partitions (twice the DMA engines) and every instruction does twice the work for the same
//    fixed cost.
//  - chunk_free_axis: a loop body that works on whole rows (`T[rows, :]`, tiles as wide as the
//    sequence) is strip-mined into column chunks, carrying each tensor_tensor_scan's last column
//    into the next chunk. Full-row tiles (28 KiB per partition for Mamba's 7168 columns) leave room
//    for only a few live tiles, so nothing overlaps; chunks pipeline.
#include <algorithm>

#include <fmt/ranges.h>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

bool int_literal(const Expr* e, int64_t& out) {
  if (!e || e->kind != ExprKind::Constant) return false;
  const auto& v = static_cast<const ConstantExpr&>(*e).value;
  if (!v.is_int() || v.is_bool()) return false;
  out = v.as_int();
  return true;
}

// Text of `e` safe to use as an operand of `*` or `//`.
std::string operand_text(const Expr& e) {
  std::string t = text(e);
  bool simple = e.kind == ExprKind::Name || e.kind == ExprKind::Constant || e.kind == ExprKind::Attribute ||
                e.kind == ExprKind::Call || e.kind == ExprKind::Subscript;
  return simple ? t : "(" + t + ")";
}

// `T[p, f]` with T a name: the subscript, else null.
SubscriptExpr* two_d_access(Expr* e) {
  if (!e || e->kind != ExprKind::Subscript) return nullptr;
  auto* sub = static_cast<SubscriptExpr*>(e);
  if (sub->value->kind != ExprKind::Name || sub->index->kind != ExprKind::Tuple) return nullptr;
  if (static_cast<SequenceExpr&>(*sub->index).elts.size() != 2) return nullptr;
  return sub;
}

ExprPtr& index_part(SubscriptExpr& s, size_t k) { return static_cast<SequenceExpr&>(*s.index).elts[k]; }

bool is_full_slice(const Expr& e) {
  if (e.kind != ExprKind::Slice) return false;
  auto& s = static_cast<const SliceExpr&>(e);
  return !s.lower && !s.upper && !s.step;
}

// The HBM tensor access of a load (`nl.load(T[...])`) or a store (`nl.store(T[...], value)`).
SubscriptExpr* hbm_access(CallExpr& call) {
  std::string name = call_name(call);
  if (name != "nl.load" && name != "nl.store") return nullptr;
  ExprPtr* dst = argument(call, name == "nl.load" ? "src" : "dst", 0);
  return dst ? two_d_access(dst->get()) : nullptr;
}

// Every call expression in a block (nested blocks included).
std::vector<CallExpr*> calls_in(Block& b) {
  std::vector<CallExpr*> out;
  for_each_expr(b, [&](ExprPtr& p) {
    if (p && p->kind == ExprKind::Call) out.push_back(static_cast<CallExpr*>(p.get()));
  });
  return out;
}

std::set<std::string> loop_variables(Block& b) {
  std::set<std::string> vars;
  for_each_block(b, [&](Block& blk) {
    for (auto& s : blk)
      if (s->kind == StmtKind::For) vars.merge(names_in(*static_cast<ForStmt&>(*s).target));
  });
  return vars;
}

// The single argument `X // V` of a loop's range call (affine_range / sequential_range / range).
BinOpExpr* range_floordiv(ForStmt& loop) {
  auto* call = loop.iter->kind == ExprKind::Call ? static_cast<CallExpr*>(loop.iter.get()) : nullptr;
  if (!call) return nullptr;
  std::string name = call_name(*call);
  bool range = name == "nl.affine_range" || name == "nl.sequential_range" ||
               (call->func->kind == ExprKind::Name && text(*call->func) == "range");
  if (!range || call->args.size() != 1 || !call->keywords.empty()) return nullptr;
  if (call->args[0]->kind != ExprKind::BinOp) return nullptr;
  auto* div = static_cast<BinOpExpr*>(call->args[0].get());
  return div->op == BinOp::FloorDiv ? div : nullptr;
}

// Elementwise calls: each output element depends only on the input elements at the same position
// (plus constants), so the rows and columns of a tile may be permuted freely around them.
bool elementwise_call(const std::string& name) {
  static const char* kOk[] = {
      "nisa.tensor_tensor", "nisa.tensor_scalar", "nisa.activation", "nisa.reciprocal", "nisa.tensor_copy",
      "nl.copy",           "nl.add",             "nl.subtract",     "nl.multiply",     "nl.divide",
      "nl.maximum",        "nl.minimum",         "nl.exp",          "nl.negative",     "nl.sqrt",
      "nl.rsqrt",          "nl.abs",             "nl.square",       "nl.sigmoid",      "nl.silu",
      "nl.tanh",           "nl.reciprocal"};
  return std::any_of(std::begin(kOk), std::end(kOk), [&](const char* ok) { return name == ok; });
}

// Per-partition operands (`scale=`, `bias=`, `operand0=` tiles) tie a value to a partition: only
// compile-time constants survive a change of which row lives on which partition.
bool scalar_operands_constant(CallExpr& call) {
  for (const char* k : {"scale", "bias", "operand0", "operand1"}) {
    ExprPtr* e = argument(call, k);
    double c;
    if (e && !constant_value(**e, c)) return false;
  }
  return true;
}

class FoldPartitions : public MatchingTransform {
 public:
  std::string name() const override { return "fold_partitions"; }
  std::string description() const override {
    return "fold half of a column loop's columns into the unused partitions of tiles that span a fixed "
           "sub-range of rows (HBM views of twice the rows, half the columns): DMAs use twice the engines "
           "and each instruction does twice the work";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override { return walk_loops(kernel, kernel, {}, sink); }

 private:
  bool walk_loops(Block& kernel, Block& b, std::set<std::string> outer, const SiteSink& sink) const {
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i]->kind != StmtKind::For) continue;
      auto& loop = static_cast<ForStmt&>(*b[i]);
      if (site_at(kernel, b, i, outer, sink)) return true;
      std::set<std::string> inner = outer;
      inner.merge(names_in(*loop.target));
      if (walk_loops(kernel, loop.body, inner, sink)) return true;
    }
    return false;
  }

  bool site_at(Block& kernel, Block& b, size_t i, const std::set<std::string>& outer, const SiteSink& sink) const {
    auto& loop = static_cast<ForStmt&>(*b[i]);
    BinOpExpr* range = range_floordiv(loop);
    if (!range || loop.target->kind != ExprKind::Name) return false;
    const std::string var = text(*loop.target);
    std::set<std::string> loops = outer;
    loops.insert(var);
    loops.merge(loop_variables(loop.body));
    std::set<std::string> bound = bound_names(loop.body);

    std::vector<std::string> tensors;  // HBM tensors in first-use order
    std::vector<SubscriptExpr*> accesses;
    int var_uses_in_columns = 0;
    bool explicit_rows = false;
    for (CallExpr* call : calls_in(loop.body)) {
      std::string name = call_name(*call);
      if (name == "nl.affine_range" || name == "nl.sequential_range") continue;
      if (name == "nl.load" || name == "nl.store") {
        SubscriptExpr* acc = hbm_access(*call);
        if (!acc || call->keywords.size() > (name == "nl.store" ? 1u : 0u)) return false;
        if (name == "nl.store" && !call->keywords.empty() && call->keywords[0].name != "value") return false;
        std::string t = text(*acc->value);
        if (bound.count(t)) return false;  // an SBUF tile or a tensor made inside the loop
        Expr& rows = *index_part(*acc, 0);
        if (rows.kind != ExprKind::Slice || static_cast<SliceExpr&>(rows).step) return false;
        if (intersects(names_in(rows), loops)) return false;  // rows already tiled by a loop
        int64_t lo = 0, hi = 0;
        auto& rs = static_cast<SliceExpr&>(rows);
        if (rs.upper && int_literal(rs.upper.get(), hi) && (!rs.lower || int_literal(rs.lower.get(), lo)) &&
            2 * (hi - lo) > 128)
          return false;  // the fold would need more than 128 partitions
        explicit_rows = explicit_rows || !is_full_slice(rows);
        std::set<std::string> cols = names_in(*index_part(*acc, 1));
        if (!cols.count(var)) return false;  // not a column tile of this loop
        var_uses_in_columns += count_uses_expr(*index_part(*acc, 1), var);
        if (std::find(tensors.begin(), tensors.end(), t) == tensors.end()) tensors.push_back(t);
        accesses.push_back(acc);
        continue;
      }
      if (!elementwise_call(name) || !scalar_operands_constant(*call)) return false;
      // A mask numbers the tile's partitions and columns as they were (an index grid made outside
      // the loop), and an activation's reduce_res sums along the free axis, which the fold splits
      // over two partitions: neither is elementwise in the folded layout.
      for (const char* k : {"mask", "reduce_op", "reduce_res", "reduce_cmd"})
        if (argument(*call, k)) return false;
    }
    if (tensors.empty() || !explicit_rows) return false;
    // One column tile for every access: a shifted window would straddle the fold at S / 2.
    for (SubscriptExpr* acc : accesses)
      if (text(*index_part(*acc, 1)) != text(*index_part(*accesses.front(), 1))) return false;
    // The loop variable may only place column tiles: anything else (an iota, a mask) would see
    // the folded numbering.
    if (count_uses(loop.body, var) != var_uses_in_columns) return false;
    // Other subscripts are tile slices: they must keep every partition.
    bool partition_slice = false;
    for_each_expr(loop.body, [&](ExprPtr& p) {
      auto* sub = two_d_access(p.get());
      if (!sub || std::find(accesses.begin(), accesses.end(), sub) != accesses.end()) return;
      if (!is_full_slice(*index_part(*sub, 0))) partition_slice = true;
    });
    if (partition_slice) return false;
    // A tensor read outside load/store (a shape, a reshape) inside the loop would see the old view.
    for (const auto& t : tensors)
      if (count_uses(loop.body, t) != int(std::count_if(accesses.begin(), accesses.end(), [&](SubscriptExpr* a) {
            return text(*a->value) == t;
          })))
        return false;

    Site site = make_site(loop, fmt::format("fold half of the columns of `{}` into the partitions of {} ({})",
                                            brief(loop), fmt::join(tensors, ", "), "2x rows, half the columns"),
                          {{"factor", "2"}});
    return sink(std::move(site), [&kernel, &b, i, &loop, range, tensors, accesses] {
      std::map<std::string, std::string> view;
      for (const auto& t : tensors) view[t] = fresh_name(kernel, t + "_fold");
      for (SubscriptExpr* acc : accesses) {
        std::string t = text(*acc->value);
        acc->value = parse_expr(view[t]);
        auto& rows = static_cast<SliceExpr&>(*index_part(*acc, 0));
        for (ExprPtr* bound : {&rows.lower, &rows.upper}) {
          if (!*bound) continue;
          int64_t c;
          *bound = int_literal(bound->get(), c) ? parse_expr(std::to_string(2 * c))
                                                : parse_expr("2 * " + operand_text(**bound));
        }
      }
      range->left = parse_expr(operand_text(*range->left) + " // 2");
      std::vector<StmtPtr> views;
      for (const auto& t : tensors)
        views.push_back(
            parse_stmt(fmt::format("{} = {}.reshape((2 * {}.shape[0], {}.shape[1] // 2))", view[t], t, t, t)));
      views.front()->comments_before.push_back(
          "# HBM views with twice the rows and half the columns: row r of the view is half r % 2 of row r // 2");
      b.insert(b.begin() + static_cast<long>(i), std::make_move_iterator(views.begin()),
               std::make_move_iterator(views.end()));
    });
  }

  static int count_uses_expr(Expr& e, const std::string& id) {
    int n = 0;
    walk(e, [&](Expr& x) { n += x.kind == ExprKind::Name && static_cast<NameExpr&>(x).id == id; });
    return n;
  }
};

// Operands of an elementwise call that are tiles of the call's own shape (not per-partition
// scalars such as scale=, bias=, operand0=, initial=).
std::vector<Expr*> data_operands(CallExpr& call) {
  std::vector<Expr*> out;
  std::string name = call_name(call);
  if (name == "nisa.tensor_scalar" || name == "nisa.activation" || name == "nisa.reciprocal") {
    ExprPtr* d = argument(call, "data", name == "nisa.activation" ? 1 : 0);
    if (d) out.push_back(d->get());
    return out;
  }
  if (name == "nisa.tensor_tensor_scan") {
    for (auto [k, pos] : {std::pair{"data0", 0}, std::pair{"data1", 1}})
      if (ExprPtr* d = argument(call, k, pos)) out.push_back(d->get());
    return out;
  }
  if (name == "nisa.tensor_tensor") {
    for (auto [k, pos] : {std::pair{"data1", 0}, std::pair{"data2", 1}})
      if (ExprPtr* d = argument(call, k, pos)) out.push_back(d->get());
    return out;
  }
  for (auto& a : call.args) out.push_back(a.get());  // nl.* elementwise functions
  return out;
}

// The tile names an elementwise expression combines, through nested elementwise calls
// (`nl.multiply(t, nl.exp(e))` -> t, e).
void data_names(Expr& e, std::vector<std::string>& out) {
  if (e.kind == ExprKind::Name) out.push_back(text(e));
  if (e.kind != ExprKind::Call) return;
  auto& call = static_cast<CallExpr&>(e);
  std::string name = call_name(call);
  if (!elementwise_call(name) && name != "nisa.tensor_tensor_scan") return;
  for (Expr* d : data_operands(call)) data_names(*d, out);
}

// The shape tuple of nl.zeros/nl.ndarray (an SBUF tile) or of X.broadcast_to(shape).
SequenceExpr* tile_shape(CallExpr& call) {
  std::string name = call_name(call);
  ExprPtr* shape = nullptr;
  if (name == "nl.zeros" || name == "nl.ndarray") {
    ExprPtr* buf = argument(call, "buffer", 2);
    if (buf && (text(**buf) == "nl.shared_hbm" || text(**buf) == "nl.hbm")) return nullptr;
    shape = argument(call, "shape", 0);
  } else if (call.func->kind == ExprKind::Attribute && static_cast<AttributeExpr&>(*call.func).attr == "broadcast_to") {
    shape = argument(call, "shape", 0);
  }
  if (!shape || (*shape)->kind != ExprKind::Tuple) return nullptr;
  auto* t = static_cast<SequenceExpr*>(shape->get());
  return t->elts.size() == 2 ? t : nullptr;
}

// Names a statement binds (assignment / aug-assignment targets, a loop's variable and body).
std::set<std::string> names_bound_by(Stmt& s) {
  std::set<std::string> out;
  if (s.kind == StmtKind::Assign)
    for (auto& t : static_cast<AssignStmt&>(s).targets) out.merge(names_in(*t));
  if (s.kind == StmtKind::AugAssign) out.merge(names_in(*static_cast<AugAssignStmt&>(s).target));
  if (s.kind == StmtKind::For) {
    out.merge(names_in(*static_cast<ForStmt&>(s).target));
    out.merge(bound_names(static_cast<ForStmt&>(s).body));
  }
  return out;
}

class ChunkFreeAxis : public MatchingTransform {
 public:
  std::string name() const override { return "chunk_free_axis"; }
  std::string description() const override {
    return "strip-mine a loop body that works on whole rows into column chunks (a scan carries its last "
           "column into the next chunk): smaller tiles leave room for the next iterations to overlap";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i)
        if (b[i]->kind == StmtKind::For && site_at(kernel, static_cast<ForStmt&>(*b[i]), sink)) return true;
      return false;
    });
  }

 private:
  struct Scan {
    Stmt* stmt;         // h = nisa.tensor_tensor_scan(..., initial=0, ...)
    Block* block;       // the block holding it (the loop body or an inner loop's body)
    ForStmt* inner;     // the affine loop around it inside the loop body, or null
  };

  struct Analysis {
    std::string width;                 // N: the full row width
    std::string partitions;            // P of the first (P, N) tile
    std::set<std::string> wide;        // tiles N columns wide
    std::vector<Scan> scans;
  };

  static bool analyse(ForStmt& loop, Analysis& a) {
    Block& body = loop.body;
    std::set<std::string> bound = bound_names(body);
    // Width: the last dimension of every (P, N) tile made in the body; one name for all.
    int width_uses = 0;
    for (CallExpr* call : calls_in(body)) {
      SequenceExpr* shape = tile_shape(*call);
      if (!shape) continue;
      if (shape->elts[1]->kind != ExprKind::Name) return false;
      std::string n = text(*shape->elts[1]);
      if (!a.width.empty() && a.width != n) return false;
      if (a.width.empty()) a.partitions = text(*shape->elts[0]);
      a.width = n;
      ++width_uses;
    }
    if (a.width.empty() || bound.count(a.width) || count_uses(body, a.width) != width_uses) return false;
    // Every call must be elementwise along the free axis (or a load/store/tile allocation).
    for (CallExpr* call : calls_in(body)) {
      std::string n = call_name(*call);
      if (elementwise_call(n) || tile_shape(*call) || n == "nl.load" || n == "nl.store" || n == "nl.zeros" ||
          n == "nl.affine_range" || n == "nl.sequential_range" || n == "nisa.tensor_tensor_scan")
        continue;
      return false;
    }
    // Which names are full-width tiles: seeded by the (P, N) tiles, unified through elementwise ops.
    std::vector<std::pair<std::string, std::vector<std::string>>> links;  // target -> data operand names
    bool ok = true;
    for_each_block(body, [&](Block& blk) {
      for (auto& s : blk) {
        std::string target;
        Expr* value = nullptr;
        if (s->kind == StmtKind::AugAssign) {
          auto& aug = static_cast<AugAssignStmt&>(*s);
          if (aug.target->kind != ExprKind::Name) continue;
          target = text(*aug.target);
          value = aug.value.get();
        } else {
          target = assigned_name(*s);
          value = target.empty() ? nullptr : assigned_value(*s);
        }
        if (!value) continue;
        bool seeded = false;
        walk(*value, [&](Expr& e) {
          if (e.kind == ExprKind::Call && tile_shape(static_cast<CallExpr&>(e))) seeded = true;
        });
        if (seeded) a.wide.insert(target);
        if (value->kind != ExprKind::Call) continue;
        std::vector<std::string> operands;
        data_names(*value, operands);
        if (s->kind == StmtKind::AugAssign) operands.push_back(target);
        links.push_back({target, operands});
      }
    });
    for (bool grew = true; grew;) {
      grew = false;
      for (auto& [target, operands] : links) {
        bool any = a.wide.count(target) > 0;
        for (auto& o : operands) any = any || a.wide.count(o);
        if (!any) continue;
        grew |= a.wide.insert(target).second;
        for (auto& o : operands) grew |= a.wide.insert(o).second;
      }
    }
    for (auto& n : a.wide)
      if (!bound.count(n)) return false;  // a full-width tile from outside the loop
    // Full-width tiles are only used whole: a column slice of one would change meaning.
    for_each_expr(body, [&](ExprPtr& p) {
      if (p && p->kind == ExprKind::Subscript) {
        auto& sub = static_cast<SubscriptExpr&>(*p);
        if (sub.value->kind == ExprKind::Name && a.wide.count(text(*sub.value))) ok = false;
      }
    });
    if (!ok) return false;
    // Stores write whole rows of full-width tiles; scans start from a zero carry.
    for (CallExpr* call : calls_in(body)) {
      if (call_name(*call) != "nl.store") continue;
      SubscriptExpr* acc = hbm_access(*call);
      ExprPtr* value = argument(*call, "value", 1);
      if (!acc || !value || (*value)->kind != ExprKind::Name || !a.wide.count(text(**value))) return false;
      if (!is_full_slice(*index_part(*acc, 1))) return false;
    }
    if (!find_scans(body, a)) return false;
    // The carries are allocated before the chunk loop, with the tiles' partition count.
    return a.scans.empty() || !intersects(names_in(*parse_expr(a.partitions)), bound);
  }

  static bool find_scans(Block& body, Analysis& a) {
    auto scan_in = [&](Block& blk, ForStmt* inner) {
      for (auto& s : blk) {
        CallExpr* scan = as_call(assigned_value(*s), "nisa.tensor_tensor_scan");
        if (assigned_name(*s).empty() || !scan) continue;
        ExprPtr* init = argument(*scan, "initial", 2);
        double c;
        if (!init || !constant_value(**init, c) || c != 0) return false;
        a.scans.push_back({s.get(), &blk, inner});
      }
      return true;
    };
    if (!scan_in(body, nullptr)) return false;
    for (auto& s : body) {
      if (s->kind != StmtKind::For) continue;
      auto& inner = static_cast<ForStmt&>(*s);
      auto* range = as_call(inner.iter.get(), "nl.affine_range");
      bool has_scan = false;
      for_each_expr(inner.body,
                    [&](ExprPtr& p) { has_scan = has_scan || (p && call_name(*p) == "nisa.tensor_tensor_scan"); });
      if (!has_scan) continue;
      // The carry is indexed by the inner loop's variable: one column per iteration.
      if (!range || range->args.size() != 1 || inner.target->kind != ExprKind::Name) return false;
      if (intersects(names_in(*range->args[0]), bound_names(body))) return false;
      size_t before = a.scans.size();
      if (!scan_in(inner.body, &inner)) return false;
      int nested = 0;
      for_each_expr(inner.body, [&](ExprPtr& p) { nested += p && call_name(*p) == "nisa.tensor_tensor_scan"; });
      if (nested != int(a.scans.size() - before)) return false;  // a scan deeper in the nest
    }
    int all = 0;
    for_each_expr(body, [&](ExprPtr& p) { all += p && call_name(*p) == "nisa.tensor_tensor_scan"; });
    return all == int(a.scans.size());
  }

  bool site_at(Block& kernel, ForStmt& loop, const SiteSink& sink) const {
    Analysis a;
    if (!analyse(loop, a)) return false;
    for (int64_t chunk : {512, 1024, 2048}) {
      Site site = make_site(loop, fmt::format("process the {}-wide rows of `{}` in chunks of {} columns{}", a.width,
                                              brief(loop), chunk, a.scans.empty() ? "" : " (scans carried)"),
                            {{"value", std::to_string(chunk)}, {"width", a.width}});
      if (sink(std::move(site), [&kernel, &loop, a, chunk] { rewrite(kernel, loop, a, chunk); })) return true;
    }
    return false;
  }

  static void rewrite(Block& kernel, ForStmt& loop, const Analysis& a, int64_t chunk) {
    // The chunk size is a variable (like a baseline's `block = 1024`), so free_size can retune it
    // later and every use, the carry's last column included, follows.
    const std::string j = fresh_name(kernel, "chunk"), j0 = fresh_name(kernel, "chunk_start");
    const std::string size = fresh_name(kernel, "chunk_size");
    const std::string cols = fmt::format("{}:{} + {}", j0, j0, size);
    // Narrow the tiles, loads and stores of the full-width names.
    for_each_block(loop.body, [&](Block& blk) {
      for (auto& s : blk) {
        std::string target = s->kind == StmtKind::AugAssign ? text(*static_cast<AugAssignStmt&>(*s).target)
                                                             : assigned_name(*s);
        bool store = s->kind == StmtKind::Expr && call_name(*static_cast<ExprStmt&>(*s).value) == "nl.store";
        if (!store && !a.wide.count(target)) continue;
        for_each_expr(*s, [&](ExprPtr& p) {
          if (!p || p->kind != ExprKind::Call) return;
          auto& call = static_cast<CallExpr&>(*p);
          if (SequenceExpr* shape = tile_shape(call)) shape->elts[1] = parse_expr(size);
          if (SubscriptExpr* acc = hbm_access(call); acc && is_full_slice(*index_part(*acc, 1))) {
            ExprPtr probe = parse_expr("x[" + cols + "]");
            index_part(*acc, 1) = std::move(static_cast<SubscriptExpr&>(*probe).index);
          }
        });
      }
    });
    // Carries: one column per scan instance, the last column of each chunk feeds the next.
    std::vector<StmtPtr> carries;
    std::set<std::string> taken;
    for (const Scan& sc : a.scans) {
      std::string base = fresh_name(kernel, "scan_carry"), carry = base;
      for (int k = 2; taken.count(carry) || count_uses(kernel, carry) > 0; ++k) carry = fmt::format("{}{}", base, k);
      taken.insert(carry);
      std::string cols_expr = sc.inner ? text(*as_call(sc.inner->iter.get(), "nl.affine_range")->args[0]) : "1";
      std::string col = sc.inner ? text(*sc.inner->target) : "0";
      carries.push_back(parse_stmt(fmt::format("{} = nl.zeros(({}, {}), dtype=nl.float32, buffer=nl.sbuf)", carry,
                                               a.partitions, cols_expr)));
      auto* scan = as_call(assigned_value(*sc.stmt), "nisa.tensor_tensor_scan");
      std::string slot = fmt::format("{}[:, {}:{} + 1]", carry, col, col);
      if (ExprPtr* init = argument(*scan, "initial"))
        *init = parse_expr(slot);
      else
        scan->args[2] = parse_expr(slot);
      std::string h = assigned_name(*sc.stmt);
      auto it = std::find_if(sc.block->begin(), sc.block->end(), [&](const StmtPtr& p) { return p.get() == sc.stmt; });
      sc.block->insert(it + 1, parse_stmt(fmt::format("{} = nl.copy({}[:, {} - 1:{}])", slot, h, size, size)));
    }
    // Statements that do not touch full-width tiles stay before the chunk loop.
    // (Not if it reads a name bound inside, or rebinds a name read inside before it.)
    Block outside, inside;
    std::set<std::string> moved, read_inside;
    for (auto& s : loop.body) {
      std::string target = assigned_name(*s);
      bool hoist = s->kind == StmtKind::Assign && !target.empty() && !intersects(names_in(*s), a.wide) &&
                   !intersects(names_in(*s), moved) && !a.wide.count(target) && !read_inside.count(target);
      if (hoist) {
        outside.push_back(std::move(s));
      } else {
        moved.merge(names_bound_by(*s));
        read_inside.merge(names_in(*s));
        inside.push_back(std::move(s));
      }
    }
    const char* range = a.scans.empty() ? "nl.affine_range" : "nl.sequential_range";
    auto chunk_loop = parse_stmt(fmt::format("for {} in {}({} // {}):\n    pass\n", j, range, a.width, size));
    auto& cl = static_cast<ForStmt&>(*chunk_loop);
    cl.body.clear();
    cl.body.push_back(parse_stmt(fmt::format("{} = {} * {}", j0, j, size)));
    for (auto& s : inside) cl.body.push_back(std::move(s));
    if (!a.scans.empty())
      chunk_loop->comments_before.push_back(
          "# sequential: each chunk's scans start from the previous chunk's last column");
    loop.body.clear();
    for (auto& s : outside) loop.body.push_back(std::move(s));
    for (auto& s : carries) loop.body.push_back(std::move(s));
    loop.body.push_back(parse_stmt(fmt::format("{} = {}", size, chunk)));
    loop.body.push_back(std::move(chunk_loop));
  }
};

}  // namespace

std::unique_ptr<Transform> make_fold_partitions() { return std::make_unique<FoldPartitions>(); }
std::unique_ptr<Transform> make_chunk_free_axis() { return std::make_unique<ChunkFreeAxis>(); }

}  // namespace agents::builtin
