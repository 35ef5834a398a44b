// Transformations for softmax / attention kernels (bmm_softmax, gqa_full and kernels like them):
//  - fuse_stages: fuse a stage loop that fills per-iteration buffers (score rows and their maxima)
//    with the following loop that consumes them, optionally in blocks of a few iterations, so the
//    buffers live for a block instead of the whole range (no spill to HBM);
//  - read_copy_source: an op that reads back a tile just copied out of PSUM reads the PSUM source
//    instead, so it no longer waits for the copy (the copy still feeds later consumers);
//  - whole_row_reduce: a row's maximum (or sum) reduced once the row is complete instead of per
//    chunk and then over the chunk partials;
//  - defer_normalization: (P * inv) @ V becomes (P @ V) * inv, so the row normalization is one
//    pass over the [rows, D] result instead of one over the [rows, N] probabilities.
#include <algorithm>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

// The first index of `x[i, ...]` (or of `x[i]`); null for an empty tuple.
Expr* leading_index(SubscriptExpr& s) {
  Expr* idx = s.index.get();
  if (idx->kind != ExprKind::Tuple) return idx;
  auto& t = static_cast<SequenceExpr&>(*idx);
  return t.elts.empty() ? nullptr : t.elts[0].get();
}

// Whether every mention of `array` in `body` is a subscript `array[var, ...]`: each iteration of
// a loop over `var` touches only its own slice of the array.
bool indexed_only_by(Block& body, const std::string& array, const std::string& var) {
  int total = count_uses(body, array), indexed = 0;
  for_each_expr(body, [&](ExprPtr& p) {
    if (!p || p->kind != ExprKind::Subscript) return;
    auto& s = static_cast<SubscriptExpr&>(*p);
    if (!is_name(*s.value, array)) return;
    Expr* lead = leading_index(s);
    if (lead && is_name(*lead, var)) ++indexed;
  });
  return indexed == total;
}

// Whether `body` binds `id` (plain assignment or loop target) before any read of it, so running
// it never observes a value of `id` from outside.
bool defined_before_use(Block& body, const std::string& id) {
  for (auto& s : body) {
    if (count_uses(*s, id) == 0) continue;
    if (assigned_name(*s) == id) return names_in(*assigned_value(*s)).count(id) == 0;
    if (s->kind == StmtKind::For) {
      auto& f = static_cast<ForStmt&>(*s);
      if (names_in(*f.iter).count(id)) return false;
      if (is_name(*f.target, id)) return true;
      return defined_before_use(f.body, id);
    }
    return false;
  }
  return true;
}

// `F(E)` for a loop range function F with one positional argument: F and E printed; false otherwise.
bool simple_range(Expr& iter, std::string& func, std::string& extent) {
  if (iter.kind != ExprKind::Call) return false;
  auto& c = static_cast<CallExpr&>(iter);
  func = call_name(c);
  if (func.empty() && c.func->kind == ExprKind::Name) func = static_cast<NameExpr&>(*c.func).id;
  static const char* kRanges[] = {"nl.affine_range", "nl.sequential_range", "nl.static_range", "range"};
  if (std::none_of(std::begin(kRanges), std::end(kRanges), [&](const char* r) { return func == r; })) return false;
  if (c.args.size() != 1 || !c.keywords.empty()) return false;
  extent = text(*c.args[0]);
  return true;
}

// for v in R: A   followed by   for w in R: B   where B reads what A stored only at [v]/[w]
// (score rows scores[m], maxima neg_max[m]) -> one loop (block=1), or an outer loop over blocks
// of `block` iterations running A on the block and then B on it (block=2, 4): the buffers then
// live one block instead of the whole range. Iteration v of B needs only iteration v of A, and
// neither half reads a plain name the other binds before binding it itself, so the order
// A(0) B(0) A(1) B(1) ... (or per block) computes what A(0..n) B(0..n) did.
class FuseStages : public MatchingTransform {
 public:
  std::string name() const override { return "fuse_stages"; }
  std::string description() const override {
    return "fuse a loop that fills per-iteration buffers with the loop that consumes them (per iteration or "
           "per block of iterations), so the buffers stay on chip instead of spilling the whole range";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i + 1 < b.size(); ++i) {
        if (!fusable(b, i)) continue;
        auto& first = static_cast<ForStmt&>(*b[i]);
        std::string func, extent, var = text(*first.target);
        bool blockable = simple_range(*first.iter, func, extent);
        for (int block : {1, 2, 4}) {
          if (block > 1 && !blockable) break;
          std::string how = block == 1 ? "per iteration" : fmt::format("in blocks of {} iterations", block);
          Site site = make_site(first, fmt::format("fuse `{}` with the loop consuming its per-iteration buffers, {}",
                                                   brief(first), how),
                                {{"block", std::to_string(block)}});
          if (sink(std::move(site), [&kernel, &b, i, block, func, extent, var] {
                apply_fusion(kernel, b, i, block, func, extent, var);
              }))
            return true;
        }
      }
      return false;
    });
  }

 private:
  static bool fusable(Block& b, size_t i) {
    if (b[i]->kind != StmtKind::For || b[i + 1]->kind != StmtKind::For) return false;
    auto& first = static_cast<ForStmt&>(*b[i]);
    auto& second = static_cast<ForStmt&>(*b[i + 1]);
    if (first.target->kind != ExprKind::Name || second.target->kind != ExprKind::Name) return false;
    if (text(*first.iter) != text(*second.iter)) return false;
    std::string v = text(*first.target), w = text(*second.target);
    std::set<std::string> first_names = names_in(first.body), second_names = names_in(second.body);
    if (v != w && second_names.count(v)) return false;
    std::set<std::string> first_bound = bound_names(first.body), second_bound = bound_names(second.body);
    // Buffers flowing between the halves (either way) must be touched only at the own iteration.
    std::set<std::string> shared;
    for (auto& x : subscript_stored(first.body))
      if (second_names.count(x)) shared.insert(x);
    for (auto& x : subscript_stored(second.body))
      if (first_names.count(x)) shared.insert(x);
    if (shared.empty()) return false;  // nothing flows: plain fuse_loops covers it
    for (auto& x : shared) {
      if (first_bound.count(x) || second_bound.count(x)) return false;  // a per-iteration local, not a buffer
      if (!indexed_only_by(first.body, x, v) || !indexed_only_by(second.body, x, w)) return false;
    }
    // Plain names: neither half may read a value the other binds before binding it itself.
    for (auto& x : first_bound)
      if (second_names.count(x) && !shared.count(x) && x != w && !defined_before_use(second.body, x)) return false;
    for (auto& x : second_bound)
      if (first_names.count(x) && !shared.count(x) && x != v && !defined_before_use(first.body, x)) return false;
    return true;
  }

  static void apply_fusion(Block& kernel, Block& b, size_t i, int block, const std::string& func,
                           const std::string& extent, const std::string& var) {
    auto& first = static_cast<ForStmt&>(*b[i]);
    auto& second = static_cast<ForStmt&>(*b[i + 1]);
    std::string from = text(*second.target);
    for (auto& st : second.body) rename(*st, from, var);
    if (block == 1) {
      for (auto& st : second.body) first.body.push_back(std::move(st));
      erase_stmt(b, i + 1);
      return;
    }
    std::string outer = fresh_name(kernel, var + "_blk"), inner = fresh_name(kernel, var + "_in");
    StmtPtr nest = parse_stmt(fmt::format("for {} in {}(({}) // {}):\n    pass", outer, func, extent, block));
    auto& outer_loop = static_cast<ForStmt&>(*nest);
    outer_loop.body.clear();
    for (ForStmt* half : {&first, &second}) {
      StmtPtr loop = parse_stmt(fmt::format("for {} in {}({}):\n    pass", inner, func, block));
      auto& inner_loop = static_cast<ForStmt&>(*loop);
      inner_loop.body.clear();
      inner_loop.body.push_back(parse_stmt(fmt::format("{} = {} * {} + {}", var, outer, block, inner)));
      for (auto& st : half->body) inner_loop.body.push_back(std::move(st));
      outer_loop.body.push_back(std::move(loop));
    }
    b[i] = std::move(nest);
    erase_stmt(b, i + 1);
  }
};

bool is_copy_call(Expr* v) { return as_call(v, "nl.copy") || as_call(v, "nisa.tensor_copy"); }

// Ops that may read their data operand from PSUM (Vector / Scalar Engine instructions). Matmuls,
// transposes on the PE and DMA stores need SBUF operands.
bool reads_psum_ok(const std::string& call) {
  static const char* kOps[] = {"nisa.tensor_reduce", "nisa.activation",    "nisa.activation_reduce",
                               "nisa.tensor_scalar", "nisa.tensor_tensor", "nl.copy",
                               "nisa.tensor_copy",   "nl.max",             "nl.sum"};
  return std::any_of(std::begin(kOps), std::end(kOps), [&](const char* o) { return call == o; });
}

// Replaces, in the arguments of PSUM-capable calls in `s`, every expression printed as `target`
// by the name `src`. Returns the number of replacements.
int forward_reads(Stmt& s, const std::string& target, const std::string& src) {
  int n = 0;
  for_each_expr(s, [&](ExprPtr& p) {
    if (!p || p->kind != ExprKind::Call || !reads_psum_ok(call_name(*p))) return;
    auto& c = static_cast<CallExpr&>(*p);
    auto swap_in = [&](ExprPtr& arg) {
      if (arg && text(*arg) == target) arg = parse_expr(src), ++n;
    };
    for (auto& a : c.args) swap_in(a);
    for (auto& k : c.keywords) swap_in(k.value);
  });
  return n;
}

// X[idx] = nl.copy(src)  (dtype absent or float32: the copy is exact for the fp32 PSUM source);
// later reads of exactly X[idx] by Vector/Scalar Engine ops read src instead, until X, src or a
// name of idx changes.
class ReadCopySource : public MatchingTransform {
 public:
  std::string name() const override { return "read_copy_source"; }
  std::string description() const override {
    return "let the ops that read back a tile just copied out of PSUM read the PSUM source directly, so they "
           "run alongside the copy instead of after it";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::Assign) continue;
        auto& a = static_cast<AssignStmt&>(*b[i]);
        if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Subscript || !is_copy_call(a.value.get())) continue;
        auto& copy = static_cast<CallExpr&>(*a.value);
        ExprPtr* src = argument(copy, "src", 0);
        if (!src || (*src)->kind != ExprKind::Name) src = argument(copy, "data", 0);
        if (!src || (*src)->kind != ExprKind::Name) continue;
        if (ExprPtr* dtype = argument(copy, "dtype"); dtype && text(**dtype) != "nl.float32" &&
                                                        text(**dtype) != "np.float32")
          continue;
        auto& target = static_cast<SubscriptExpr&>(*a.targets[0]);
        if (target.value->kind != ExprKind::Name) continue;
        std::string array = text(*target.value), where = text(*a.targets[0]), from = text(**src);
        std::set<std::string> watched = names_in(*target.index);
        watched.insert(from);
        watched.insert(array);
        // The reads the action would forward (same walk, counting only).
        int reads = 0;
        for (size_t j = i + 1; j < b.size(); ++j) {
          bool kills = kills_any(*b[j], watched);
          if (kills && b[j]->kind == StmtKind::For) break;
          reads += count_forwardable(*b[j], where);
          if (kills) break;
        }
        if (reads == 0) continue;
        Site site = make_site(*b[i], fmt::format("read `{}` instead of its copy `{}` in {} later op(s)", from, where,
                                                 reads));
        if (sink(std::move(site), [&b, i, watched, where, from] {
              for (size_t j = i + 1; j < b.size(); ++j) {
                bool kills = kills_any(*b[j], watched);
                if (kills && b[j]->kind == StmtKind::For) break;
                forward_reads(*b[j], where, from);
                if (kills) break;
              }
            }))
          return true;
      }
      return false;
    });
  }

 private:
  // Whether `s` rebinds one of `names` or stores into one of them through a subscript.
  static bool kills_any(Stmt& s, const std::set<std::string>& names) {
    Block one;
    one.push_back(StmtPtr(&s));
    bool kills = intersects(bound_names(one), names) || intersects(subscript_stored(one), names);
    one[0].release();
    return kills;
  }

  static int count_forwardable(Stmt& s, const std::string& where) {
    int n = 0;
    for_each_expr(s, [&](ExprPtr& p) {
      if (!p || p->kind != ExprKind::Call || !reads_psum_ok(call_name(*p))) return;
      auto& c = static_cast<CallExpr&>(*p);
      for (auto& a : c.args) n += a && text(*a) == where;
      for (auto& k : c.keywords) n += k.value && text(*k.value) == where;
    });
    return n;
  }
};

// The first operand of a transpose of `x` on the PE: nc_matmul(x, ident, ..., is_transpose=True)
// or nc_transpose(x); null for anything else.
ExprPtr* transposed_operand(Expr* v) {
  if (auto* t = as_call(v, "nisa.nc_transpose")) return argument(*t, "data", 0);
  auto* mm = as_call(v, "nisa.nc_matmul");
  if (!mm) return nullptr;
  ExprPtr* flag = argument(*mm, "is_transpose");
  if (!flag || text(**flag) != "True") return nullptr;
  return argument(*mm, "stationary", 0);
}

// `x` or `x[:, ...]`: whole rows of the tile named `x` (its partition dimension untouched).
bool whole_rows_of(Expr& e, const std::string& x) {
  if (is_name(e, x)) return true;
  if (e.kind != ExprKind::Subscript) return false;
  auto& s = static_cast<SubscriptExpr&>(e);
  if (!is_name(*s.value, x) || s.index->kind != ExprKind::Tuple) return false;
  Expr* lead = leading_index(s);
  if (!lead || lead->kind != ExprKind::Slice) return false;
  auto& slice = static_cast<SliceExpr&>(*lead);
  return !slice.lower && !slice.upper && !slice.step;
}

// pn = tensor_scalar(data=P, op0=nl.multiply|nl.divide, operand0=INV)     (one value per row of P)
// ACC = nl.zeros(..., buffer=nl.psum)
// for t in R:
//     T = nc_matmul(pn[:, s], ident, is_moving_onezero=True, is_transpose=True)
//     T2 = nl.copy(T)                                    (optional)
//     ACC += nc_matmul(T2, V)
// R = nl.copy(ACC, dtype=D)
//   -> the transposes read P and R = tensor_scalar(data=ACC, op0=..., operand0=INV, dtype=D).
// T2 is the stationary operand: its columns (the rows of pn) become the rows of ACC, so scaling a
// row of P by INV scales the same row of ACC: (diag(INV) P) V = diag(INV) (P V).
class DeferNormalization : public MatchingTransform {
 public:
  std::string name() const override { return "defer_normalization"; }
  std::string description() const override {
    return "normalize the rows of the P @ V result instead of the rows of P (one pass over [rows, D] instead of "
           "one over [rows, N])";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i)
        if (match_at(kernel, b, i, sink)) return true;
      return false;
    });
  }

 private:
  static bool match_at(Block& kernel, Block& b, size_t i, const SiteSink& sink) {
    std::string pn = assigned_name(*b[i]);
    auto* ts = as_call(assigned_value(*b[i]), "nisa.tensor_scalar");
    if (pn.empty() || !ts || !ts->args.empty() || ts->keywords.size() != 3) return false;
    auto *data = argument(*ts, "data"), *op = argument(*ts, "op0"), *inv = argument(*ts, "operand0");
    if (!data || !op || !inv || (*data)->kind != ExprKind::Name || (*inv)->kind != ExprKind::Name) return false;
    std::string p = text(**data), scale = text(**inv), op0 = text(**op);
    if (op0 != "nl.multiply" && op0 != "nl.divide") return false;
    size_t l = next_use(b, i, pn);
    if (l == b.size() || b[l]->kind != StmtKind::For || next_use(b, l, pn) != b.size()) return false;
    auto& loop = static_cast<ForStmt&>(*b[l]);
    if (count_uses(kernel, pn) != 2 || count_uses(loop.body, pn) != 1) return false;
    size_t s = next_use(loop.body, static_cast<size_t>(-1), pn);
    std::string t = assigned_name(*loop.body[s]);
    ExprPtr* operand = transposed_operand(assigned_value(*loop.body[s]));
    if (t.empty() || !operand || !whole_rows_of(**operand, pn) || count_uses(loop.body, t) != 2) return false;
    size_t u = next_use(loop.body, s, t);
    if (u == loop.body.size()) return false;
    std::string t2 = t;
    if (is_copy_call(assigned_value(*loop.body[u])) && !assigned_name(*loop.body[u]).empty()) {
      t2 = assigned_name(*loop.body[u]);
      if (count_uses(loop.body, t2) != 2) return false;
      u = next_use(loop.body, u, t2);
      if (u == loop.body.size()) return false;
    }
    if (loop.body[u]->kind != StmtKind::AugAssign) return false;
    auto& accumulate = static_cast<AugAssignStmt&>(*loop.body[u]);
    auto* mm = as_call(accumulate.value.get(), "nisa.nc_matmul");
    if (accumulate.op != BinOp::Add || accumulate.target->kind != ExprKind::Name || !mm) return false;
    ExprPtr* stationary = argument(*mm, "stationary", 0);
    if (!stationary || !is_name(**stationary, t2) || count_uses(*loop.body[u], t2) != 1) return false;
    std::string acc = text(*accumulate.target);
    if (count_uses(loop.body, acc) != 1) return false;
    // ACC starts from zero right before the loop, so after it ACC is exactly this loop's sum.
    size_t z = l;
    while (z > 0 && count_uses(*b[z - 1], acc) == 0) --z;
    if (z == 0 || assigned_name(*b[z - 1]) != acc || !as_call(assigned_value(*b[z - 1]), "nl.zeros")) return false;
    size_t k = next_use(b, l, acc);
    if (k == b.size() || next_use(b, k, acc) != b.size() || child_block(*b[k]) || assigned_name(*b[k]) == acc)
      return false;
    for (size_t j = i + 1; j <= k; ++j) {  // P and INV keep their values until they are read
      Block one;
      one.push_back(StmtPtr(b[j].get()));
      bool changed = intersects(bound_names(one), {p, scale}) || intersects(subscript_stored(one), {p, scale});
      one[0].release();
      if (changed) return false;
    }
    Site site = make_site(*b[i], fmt::format("apply `{}` by {} to `{}` after the P @ V loop instead of to `{}`", op0,
                                             scale, acc, p));
    return sink(std::move(site), [&b, &loop, i, s, k, pn, p, acc, op0, scale] {
      rename(*loop.body[s], pn, p);
      std::string scaled = fmt::format("nisa.tensor_scalar(data={}, op0={}, operand0={}", acc, op0, scale);
      Expr* value = assigned_value(*b[k]);
      auto* copy = is_copy_call(value) ? static_cast<CallExpr*>(value) : nullptr;
      if (copy && copy->args.size() == 1 && is_name(*copy->args[0], acc)) {
        ExprPtr* dtype = argument(*copy, "dtype");
        bool only_dtype = copy->keywords.size() == (dtype ? 1u : 0u);
        if (only_dtype) {
          static_cast<AssignStmt&>(*b[k]).value =
              parse_expr(scaled + (dtype ? ", dtype=" + text(**dtype) : std::string()) + ")");
          erase_stmt(b, i);
          return;
        }
      }
      substitute(*b[k], acc, *parse_expr(scaled + ")"));
      erase_stmt(b, i);
    });
  }
};


// `lo:hi` printed as "n * W" and "(n + 1) * W" for the loop variable n; W returned.
bool chunk_slice(Expr& e, const std::string& n, std::string& width) {
  if (e.kind != ExprKind::Slice) return false;
  auto& s = static_cast<SliceExpr&>(e);
  if (!s.lower || !s.upper || s.step) return false;
  std::string lo = text(*s.lower), prefix = n + " * ";
  if (lo.rfind(prefix, 0) != 0) return false;
  width = lo.substr(prefix.size());
  double w;
  return constant_value(*parse_expr(width), w) && w > 0 && text(*s.upper) == fmt::format("({} + 1) * {}", n, width);
}

// The last shape element of `x = nl.ndarray((..., E), ...)` anywhere in the kernel, or "".
std::string declared_row_length(Block& kernel, const std::string& x) {
  std::string out;
  for_each_block(kernel, [&](Block& blk) {
    for (auto& s : blk) {
      auto* decl = as_call(assigned_name(*s) == x ? assigned_value(*s) : nullptr, "nl.ndarray");
      ExprPtr* shape = decl ? argument(*decl, "shape", 0) : nullptr;
      if (shape && (*shape)->kind == ExprKind::Tuple && !static_cast<SequenceExpr&>(**shape).elts.empty())
        out = text(*static_cast<SequenceExpr&>(**shape).elts.back());
    }
  });
  return out;
}

// Whether the kernel binds `name = E // W` (or `name` is literally that expression).
bool is_row_chunks(Block& kernel, const std::string& name, const std::string& row, const std::string& width) {
  std::string want = fmt::format("{} // {}", row, width);
  if (name == want) return true;
  bool found = false;
  for_each_block(kernel, [&](Block& blk) {
    for (auto& s : blk)
      if (assigned_name(*s) == name && text(*assigned_value(*s)) == want) found = true;
  });
  return found;
}

// C = nl.ndarray(...)
// for n in R(NC):                      (NC = E // W: the chunks tile the row of X exactly)
//     X[..., n * W:(n + 1) * W] = ...
//     C[:, n:n + 1] = tensor_reduce(OP, data=X[..., n * W:(n + 1) * W], axis=[1], keepdims=True)
// Y = tensor_reduce(OP, data=C, axis=[1], keepdims=True, ...)
//   -> the per-chunk reduces go; Y = tensor_reduce(OP, data=X[..., :], axis=[1], keepdims=True, ...)
// One reduction over the finished row instead of one per chunk plus a combining one: fewer
// instructions, and the chunk loop's writer no longer alternates with a reader of the same row.
class WholeRowReduce : public MatchingTransform {
 public:
  std::string name() const override { return "whole_row_reduce"; }
  std::string description() const override {
    return "reduce a row once it is complete instead of per chunk and then over the chunk partials";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t l = 0; l < b.size(); ++l)
        if (b[l]->kind == StmtKind::For && match_at(kernel, b, l, sink)) return true;
      return false;
    });
  }

 private:
  struct Reduce {
    std::string op, data;
    CallExpr* call = nullptr;
  };
  // tensor_reduce(OP, data=D, axis=[1], keepdims=True[, negate=...]); `negate` allowed only if asked.
  static bool simple_reduce(Expr* v, bool allow_negate, Reduce& out) {
    auto* r = as_call(v, "nisa.tensor_reduce");
    if (!r) return false;
    auto *op = argument(*r, "op", 0), *data = argument(*r, "data", 1), *axis = argument(*r, "axis", 2),
         *keep = argument(*r, "keepdims");
    if (!op || !data || !axis || !keep || text(**axis) != "[1]" || text(**keep) != "True") return false;
    size_t known = 4 + (argument(*r, "negate") ? 1 : 0);
    if ((!allow_negate && argument(*r, "negate")) || r->args.size() + r->keywords.size() != known) return false;
    out = {text(**op), text(**data), r};
    return out.op == "nl.max" || out.op == "nl.min" || out.op == "nl.add";
  }

  static bool match_at(Block& kernel, Block& b, size_t l, const SiteSink& sink) {
    auto& loop = static_cast<ForStmt&>(*b[l]);
    std::string func, chunks, n = text(*loop.target);
    if (loop.target->kind != ExprKind::Name || !simple_range(*loop.iter, func, chunks)) return false;
    for (size_t r = 0; r < loop.body.size(); ++r) {
      if (loop.body[r]->kind != StmtKind::Assign) continue;
      auto& partial = static_cast<AssignStmt&>(*loop.body[r]);
      Reduce inner;
      if (partial.targets.size() != 1 || partial.targets[0]->kind != ExprKind::Subscript ||
          !simple_reduce(partial.value.get(), false, inner))
        continue;
      auto& dst = static_cast<SubscriptExpr&>(*partial.targets[0]);
      if (dst.value->kind != ExprKind::Name || text(*dst.index) != fmt::format(":, {}:{} + 1", n, n)) continue;
      std::string c = text(*dst.value);
      ExprPtr* data = argument(*inner.call, "data", 1);
      if ((*data)->kind != ExprKind::Subscript) continue;
      auto& row = static_cast<SubscriptExpr&>(**data);
      if (row.value->kind != ExprKind::Name || row.index->kind != ExprKind::Tuple) continue;
      auto& idx = static_cast<SequenceExpr&>(*row.index);
      std::string x = text(*row.value), width;
      if (!chunk_slice(*idx.elts.back(), n, width)) continue;
      bool others_fixed = true;  // the other indices pick the same row every chunk
      for (size_t e = 0; e + 1 < idx.elts.size(); ++e) others_fixed = others_fixed && !names_in(*idx.elts[e]).count(n);
      if (!others_fixed || !is_row_chunks(kernel, chunks, declared_row_length(kernel, x), width)) continue;
      if (count_uses(loop.body, c) != 1) continue;
      bool later_write = false;  // the row read by the reduce keeps its values until after the loop
      for (size_t j = r + 1; j < loop.body.size(); ++j) {
        Block one;
        one.push_back(StmtPtr(loop.body[j].get()));
        later_write = later_write || subscript_stored(one).count(x) || bound_names(one).count(x);
        one[0].release();
      }
      size_t k = next_use(b, l, c);
      Reduce outer;
      if (later_write || k == b.size() || next_use(b, k, c) != b.size() || b[k]->kind != StmtKind::Assign ||
          !simple_reduce(assigned_value(*b[k]), true, outer) || outer.op != inner.op || outer.data != c)
        continue;
      bool row_kept = true;
      for (size_t j = l + 1; j < k; ++j) row_kept = row_kept && count_uses(*b[j], x) == 0;
      size_t decl = l;  // the partials' declaration, dropped with them
      while (decl > 0 && count_uses(*b[decl - 1], c) == 0) --decl;
      bool has_decl = decl > 0 && assigned_name(*b[decl - 1]) == c && as_call(assigned_value(*b[decl - 1]), "nl.ndarray") &&
                      count_uses(kernel, c) == 3;  // declaration, partial store, combining read: nothing else
      if (!row_kept) continue;
      std::string whole = x + "[";
      for (size_t e = 0; e + 1 < idx.elts.size(); ++e) whole += text(*idx.elts[e]) + ", ";
      whole += ":]";
      Site site = make_site(loop, fmt::format("reduce `{}` ({}) once after `{}` instead of per chunk into `{}`", whole,
                                              inner.op, brief(loop), c));
      size_t decl_index = has_decl ? decl - 1 : b.size();
      if (sink(std::move(site), [&b, &loop, r, decl_index, whole, outer] {
            *argument(*outer.call, "data", 1) = parse_expr(whole);
            erase_stmt(loop.body, r);
            if (loop.body.empty()) loop.body.push_back(parse_stmt("pass"));
            if (decl_index < b.size()) erase_stmt(b, decl_index);
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_fuse_stages() { return std::make_unique<FuseStages>(); }
std::unique_ptr<Transform> make_read_copy_source() { return std::make_unique<ReadCopySource>(); }
std::unique_ptr<Transform> make_defer_normalization() { return std::make_unique<DeferNormalization>(); }
std::unique_ptr<Transform> make_whole_row_reduce() { return std::make_unique<WholeRowReduce>(); }

}  // namespace agents::builtin
