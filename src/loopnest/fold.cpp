// Instruction folding on the form: chains of elementwise instructions whose intermediate values
// flow from one instruction to the next and nowhere else (sole_producer) become one instruction.
//   fold_silu                 exp(-x) -> + 1 -> reciprocal (-> * x)  =>  silu(x) / sigmoid(x);
//                             sigmoid(x) -> * x  =>  silu(x)
//   fold_scalar_ops           x op0 c0 -> (.) op1 c1 (or a reciprocal)  =>  tensor_scalar(op0, op1)
//   fold_scale                x * c -> activation(f, ., scale=s)  =>  activation(f, x, scale=c*s)
//   fold_scalar_tensor_tensor x op0 c -> (.) op1 y  =>  scalar_tensor_tensor(x, op0, c, op1, y)
//   fold_reciprocal           x * reciprocal(d)  =>  x / d
//   fold_bias                 f(x - c) with c a column ([P, 1])  =>  activation(f, x, bias=-c)
// The same chain written with names (`e = nisa.activation(...)`) or with block-dim buffers
// (`v5[i0, i1, i2, ...] = nisa.activation(...)`) is the same chain on the form.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "loopnest/alu_engine.h"
#include "loopnest/api.h"
#include "loopnest/dump.h"
#include "loopnest/nest_walk.h"
#include "loopnest/scalar_step.h"
#include "loopnest/transform.h"
#include "nki/ast_walk.h"
#include "nki/lib/alu_ops.h"

namespace loopnest {

namespace {


bool is_number(const Operand* o, double v) { return o && o->kind == Operand::Kind::Number && o->number == v; }

// A binary elementwise op on two tiles: (x, y, operator).
struct Binary {
  const Operand* x = nullptr;
  const Operand* y = nullptr;
  std::string op;
};
std::optional<Binary> binary(const Op& op) {
  if (op.api == "nisa.tensor_tensor") {
    const Operand *x = operand(op, "data1"), *y = operand(op, "data2");
    if (x && y && x->kind == Operand::Kind::Tile && y->kind == Operand::Kind::Tile) return Binary{x, y, symbol_of(op, "op")};
  }
  if (is_binary_language_op(op.api)) {
    const Operand *x = operand(op, "x"), *y = operand(op, "y");
    if (x && y && x->kind == Operand::Kind::Tile && y->kind == Operand::Kind::Tile) return Binary{x, y, operator_symbol(op.api)};
  }
  return std::nullopt;
}

// Whether a statement between `p` and `r` (of one block) changes what `p` reads by the time `r`
// runs, where the folded instruction reads it: it writes one of those tiles (the newer API's
// in-place `nisa.tensor_scalar(dst=t, data=t, ...)`), or binds again the name of one (`s = t;
// step = s * 3; s = nl.exp(t); moved = step + 1`: the form holds two tensors, the printer names both
// `s`; the print-back check refused such a site after it was listed).
bool changed_before(const Kernel& k, const OpRef& p, const OpRef& r) {
  if (p.block != r.block || p.node == r.node) return false;
  std::set<int> read;
  std::set<std::string> names;
  for (const Access* a : reads(p.op()))
    for (int t : {a->tensor, storage_of(k, a->tensor)})
      if (read.insert(t).second && !k.tensor(t).name.empty()) names.insert(k.tensor(t).name);
  // The names its text reads too (`s = t` makes `s` a name of t's tensor; the operand prints as `s`).
  for (const auto& a : p.op().args)
    if (a.value.kind == Operand::Kind::Tile && a.value.origin)
      nki::walk(*a.value.origin, [&](const nki::Expr& e) {
        if (e.kind == nki::ExprKind::Name) names.insert(static_cast<const nki::NameExpr&>(e).id);
      });
  if (read.empty()) return false;
  const auto regions = reads(p.op());
  const Ranges ranges = k.ranges();
  bool clash = false;
  auto check = [&](const Node& n) {
    for (const auto& b : n.binds) clash = clash || names.count(b) > 0;
    if (n.kind == NodeKind::Loop) clash = clash || names.count(k.loops.at(n.loop).var) > 0;
    for (const Op& op : n.ops) {
      for (const Access* w : writes(op))
        for (const Access* a : regions)
          clash = clash || (storage_of(k, w->tensor) == storage_of(k, a->tensor) && may_overlap_across(k, *w, *a, ranges));
      for (int t : {op.result, op.dst ? op.dst->tensor : -1})
        if (t >= 0 && !read.count(t) && !read.count(storage_of(k, t))) clash = clash || names.count(k.tensor(t).name) > 0;
    }
  };
  for (size_t i = p.position + 1; i < r.position && i < p.block->size(); ++i) {
    const Node& n = (*p.block)[i];
    check(n);
    for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { check(x); });
    for_each_node(n.orelse, [&](const Node& x, const std::vector<int>&) { check(x); });
  }
  return clash;
}

// Whether a fold may compute `p`'s value inside `r` instead: what `p` reads still has its names at
// `r`, and `p`'s tile holds what it computed (keeps_its_value: no truncating int32 write, which the
// fold would skip).
bool foldable_into(const Kernel& k, const OpRef& p, const OpRef& r) {
  return keeps_its_value(k, p.op()) && !changed_before(k, p, r);
}

// The writer of tile operand `o` of `r` when it flows only there and may be folded into it
// (foldable_into); null otherwise.
const OpRef* producer(const Kernel& k, const Analysis& an, const OpRef& r, const Operand* o) {
  if (!o || o->kind != Operand::Kind::Tile) return nullptr;
  const OpRef* p = sole_producer(k, an, r, o->access);
  return p && foldable_into(k, *p, r) ? p : nullptr;
}

// A producer to remove: (node id, op index), index -1 for the whole statement.
using Gone = std::pair<int, int>;
Gone gone_of(const OpRef& p) { return {p.node->id, p.node->ops.size() == 1 ? -1 : static_cast<int>(p.index)}; }

// Puts a statement's inner calls in the order its printed text evaluates them (each call's
// operands, in argument order, before the call): a fold that rebuilds the statement's own op with
// its operands in another order (scalar_tensor_tensor's data first) would otherwise print a kernel
// whose inner calls lift in another order than the form holds them.
void order_inner_calls(Node& n) {
  if (n.ops.size() < 3) return;
  std::vector<Op> out;
  std::vector<bool> placed(n.ops.size(), false);
  std::function<void(size_t)> visit = [&](size_t i) {
    for (const auto& a : n.ops[i].args) {
      if (a.value.kind != Operand::Kind::Tile) continue;
      for (size_t j = 0; j + 1 < n.ops.size(); ++j)
        if (!placed[j] && made_tile(n.ops[j]) == a.value.access.tensor) {
          placed[j] = true;
          visit(j);
        }
    }
    out.push_back(n.ops[i]);
  };
  placed.back() = true;
  visit(n.ops.size() - 1);
  if (out.size() == n.ops.size()) n.ops = std::move(out);  // else calls the root does not read: kept as they are
}

// Replaces the op of `consumer` by `op` and removes the producers of `gone`.
void replace(Kernel& k, const OpRef& consumer, Op op, std::vector<Gone> gone) {
  // The folded instruction runs where the ISA table puts its operators, as the lift of the printed
  // kernel places it (`t ** 2 * 0.25` folded is a tensor_scalar with power: GpSimd, not the
  // Vector Engine the multiply it replaces ran on); an engine the author wrote stays.
  if (!op.engine_explicit) op.engine = default_engine(k, op);
  Node& n = *consumer.node;
  const int stmt = n.id;
  n.ops[consumer.index] = std::move(op);
  n.dirty = true;
  // Inner calls first, from the last, so the indices stay valid.
  std::sort(gone.begin(), gone.end(), [](const Gone& a, const Gone& b) { return a.second > b.second; });
  for (const auto& [id, index] : gone) {
    if (index < 0) {
      erase_node(k, id);
    } else if (Node* x = find_node(k, id)) {
      x->ops.erase(x->ops.begin() + index);
      x->dirty = true;
      if (x->ops.empty()) erase_node(k, id);  // every call of the statement went
    }
  }
  if (Node* x = find_node(k, stmt)) order_inner_calls(*x);
}

bool zero_bias(const Kernel& k, const Analysis& an, const Op& act) {
  const Operand* b = operand(act, "bias");
  if (!b || b->kind == Operand::Kind::None) return true;
  if (b->kind == Operand::Kind::Number) return b->number == 0;
  if (b->kind != Operand::Kind::Tile) return false;
  auto ws = an.writers(k, b->access.tensor);
  if (ws.empty()) return false;
  for (const OpRef* w : ws) {
    const Op& m = w->op();
    if (m.cls != OpClass::Memset) return false;
    const Operand* v = operand(m, "value");
    if (m.api == "nl.zeros" || m.api == "nl.zeros_like") continue;
    if (!v || v->kind != Operand::Kind::Number || v->number != 0) return false;
  }
  return true;
}

// The writer of tile operand `o` of `r` when it is the last call of an earlier statement of the
// same block whose other calls are its own operands (`e = nl.exp(nl.negative(x))`), and its result
// flows only to `r`; null otherwise (`producer` takes statements of one call).
const OpRef* whole_statement_producer(const Kernel& k, const Analysis& an, const OpRef& r, const Operand* o) {
  if (!o || o->kind != Operand::Kind::Tile || k.tensor(o->access.tensor).role != TensorRole::Value) return nullptr;
  auto ws = an.writers(k, o->access.tensor);
  if (ws.size() != 1) return nullptr;
  const OpRef* w = ws[0];
  const Op& op = w->op();
  if (op.accumulate || !op.dst || !(*op.dst == o->access) || w->node->kind != NodeKind::Stmt || w->node->frozen) return nullptr;
  if (w->index + 1 != w->node->ops.size() || w->block != r.block || w->position >= r.position) return nullptr;
  for (size_t i = 0; i + 1 < w->node->ops.size(); ++i)
    if (w->node->ops[i].result < 0 || !k.tensor(w->node->ops[i].result).name.empty()) return nullptr;
  for (const OpRef* x : an.readers(k, o->access.tensor))
    if (x->node != r.node || x->index != r.index) return nullptr;
  return foldable_into(k, *w, r) ? w : nullptr;
}

// exp(-x) and what computing it took: an exp activation with scale -1, or the exp (nl.exp, an
// activation with scale 1) of a negation (nl.negative(x), x * -1) that flows only there.
struct NegExp {
  const Operand* x = nullptr;
  std::vector<Gone> gone;
  const OpRef* exp = nullptr;  // the exp (the sites' anchor)
};
std::optional<NegExp> neg_exp(const Kernel& k, const Analysis& an, const OpRef& ex) {
  const Op& e = ex.op();
  bool act = e.api == "nisa.activation" && symbol_of(e, "op") == "exp";
  if (!act && e.api != "nl.exp") return std::nullopt;
  const Operand* in = operand(e, act ? "data" : "x");
  if (!in || in->kind != Operand::Kind::Tile || !zero_bias(k, an, e)) return std::nullopt;
  const Operand* scale = act ? operand(e, "scale") : nullptr;
  if (is_number(scale, -1.0)) return NegExp{in, {gone_of(ex)}, &ex};
  if (scale && scale->kind != Operand::Kind::None && !is_number(scale, 1.0)) return std::nullopt;
  const OpRef* neg = producer(k, an, ex, in);
  if (!neg) return std::nullopt;
  const Op& n = neg->op();
  const Operand* x = nullptr;
  if (n.api == "nl.negative") {
    x = operand(n, "x");
  } else if (auto st = scalar_step(n); st && st->op == "multiply" && is_number(&st->operand, -1.0)) {
    x = st->data;
  }
  if (!x || x->kind != Operand::Kind::Tile) return std::nullopt;
  return NegExp{x, {gone_of(ex), gone_of(*neg)}, &ex};
}

// 1 + exp(-x) computed by `plus` (an add of 1 to an exp(-x) that flows only there).
std::optional<NegExp> one_plus_neg_exp(const Kernel& k, const Analysis& an, const OpRef* plus) {
  if (!plus) return std::nullopt;
  auto add = scalar_step(plus->op());
  if (!add || add->op != "add" || add->reverse || !is_number(&add->operand, 1.0)) return std::nullopt;
  const OpRef* ex = producer(k, an, *plus, add->data);
  if (!ex) ex = whole_statement_producer(k, an, *plus, add->data);
  if (!ex) return std::nullopt;
  auto ne = neg_exp(k, an, *ex);
  if (ne && ex->node->ops.size() > 1) ne->gone.push_back({ex->node->id, -1});  // the statement with its inner calls
  if (ne) ne->gone.push_back(gone_of(*plus));
  return ne;
}

std::string name_of(const Kernel& k, const Operand& o) {
  return o.kind == Operand::Kind::Tile ? access_text(k, o.access) : "?";
}

// silu(x) in the dialect of the op it replaces.
Op silu_op(const Op& like, const Operand& x) {
  return like.api.rfind("nl.", 0) == 0 ? rebuild(like, "nl.silu", {arg("x", x)})
                                       : rebuild(like, "nisa.activation", {arg("op", symbol("silu")), arg("data", x)});
}

// The input x of a sigmoid activation of x alone (nl.sigmoid(x), or nisa.activation(op=sigmoid)
// with no bias and scale 1); null otherwise.
const Operand* sigmoid_input(const Kernel& k, const Analysis& an, const Op& op) {
  bool act = op.api == "nisa.activation" && symbol_of(op, "op") == "sigmoid";
  if (!act && op.api != "nl.sigmoid") return nullptr;
  const Operand* x = operand(op, act ? "data" : "x");
  if (!x || x->kind != Operand::Kind::Tile || !zero_bias(k, an, op)) return nullptr;
  const Operand* scale = act ? operand(op, "scale") : nullptr;
  if (scale && scale->kind != Operand::Kind::None && !is_number(scale, 1.0)) return nullptr;
  return x;
}

// The multiply that is the only reader of `r`'s result and multiplies it by `x` (in r's block,
// r its sole producer); null otherwise.
const OpRef* only_times(const Kernel& k, const Analysis& an, const OpRef& r, const Operand& x) {
  if (!r.op().dst) return nullptr;
  auto readers = an.region_readers(k, *r.op().dst);
  if (readers.size() != 1) return nullptr;
  const OpRef* m = readers[0];
  auto b = binary(m->op());
  if (!b || b->op != "multiply" || m->block != r.block || sole_producer(k, an, *m, *r.op().dst) != &r) return nullptr;
  const Operand* other = b->x->access == *r.op().dst ? b->y : b->x;
  return other->access == x.access ? m : nullptr;
}

class FoldSilu : public Transform {
 public:
  std::string name() const override { return "fold_silu"; }
  std::string description() const override {
    return "compute exp(-x) -> +1 -> reciprocal (-> times x) as one sigmoid (silu) activation on the Scalar Engine";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      // x / (1 + exp(-x)): silu, as the formula is written with nl.* math.
      if (auto b = binary(r.op()); b && b->op == "divide") {
        auto ne = one_plus_neg_exp(k, an, producer(k, an, r, b->y));
        if (!ne || b->x->access != ne->x->access) continue;
        Site s = make_site(k, an, *ne->exp, fmt::format("compute silu({}) with one activation instead of four instructions",
                                                        name_of(k, *b->x)),
                           {{"func", "silu"}});
        const OpRef* target = &r;
        Operand data = *b->x;
        if (sink(s, [&k, target, data, gone = ne->gone] { replace(k, *target, silu_op(target->op(), data), gone); }))
          return true;
        continue;
      }
      // sigmoid(x) * x (the sigmoid written as one activation): silu.
      if (const Operand* x = sigmoid_input(k, an, r.op())) {
        const OpRef* times = only_times(k, an, r, *x);
        if (!times || !keeps_its_value(k, r.op())) continue;
        Site s = make_site(k, an, r, fmt::format("compute silu({}) with one activation instead of two instructions",
                                                 name_of(k, *x)),
                           {{"func", "silu"}});
        const OpRef* target = times;
        Operand data = *x;
        if (sink(s, [&k, target, data, gone = std::vector<Gone>{gone_of(r)}] {
              replace(k, *target, silu_op(target->op(), data), gone);
            }))
          return true;
        continue;
      }
      // reciprocal(1 + exp(-x)), then optionally times x.
      auto recip = scalar_step(r.op());
      if (!recip || recip->op != "reciprocal") continue;
      if (r.op().api != "nisa.reciprocal" && r.op().api != "nl.reciprocal") continue;
      auto ne = one_plus_neg_exp(k, an, producer(k, an, r, recip->data));
      if (!ne) continue;
      const Operand* x = ne->x;
      // Sigmoid at the reciprocal; silu when its only reader multiplies it by x.
      const OpRef* times = only_times(k, an, r, *x);
      std::vector<Gone> gone = ne->gone;
      const OpRef* ex = ne->exp;
      if (times && keeps_its_value(k, r.op())) {
        std::vector<Gone> gone_silu = gone;
        gone_silu.push_back(gone_of(r));
        Site s = make_site(k, an, *ex, fmt::format("compute silu({}) with one activation instead of four instructions",
                                                   name_of(k, *x)),
                           {{"func", "silu"}});
        const OpRef* target = times;
        Operand data = *x;
        if (sink(s, [&k, target, data, gone = gone_silu] { replace(k, *target, silu_op(target->op(), data), gone); }))
          return true;
      }
      Site s = make_site(k, an, *ex, fmt::format("compute sigmoid({}) with one activation instead of three instructions",
                                                 name_of(k, *x)),
                         {{"func", "sigmoid"}});
      Operand data = *x;
      const OpRef* target = &r;
      if (sink(s, [&k, target, data, gone] {
            Op op = target->op().api.rfind("nl.", 0) == 0
                        ? rebuild(target->op(), "nl.sigmoid", {arg("x", data)})
                        : rebuild(target->op(), "nisa.activation", {arg("op", symbol("sigmoid")), arg("data", data)});
            replace(k, *target, std::move(op), gone);
          }))
        return true;
    }
    return false;
  }
};

// One instruction applies its two ALU operators in one class: arithmetic (comparisons included,
// computed in fp32) or bitvec on raw integer bits (nki-language.md 8.3 tensor_scalar; the language
// core refuses a bitvec op on the fp32 intermediate). `(d <= 1.0) & m` is no fold: its comparison
// gives a 0/1 float that bitwise_and refuses. Local list, as nl_activation_function's below.
bool same_alu_class(const std::string& op0, const std::string& op1) {
  static const std::set<std::string> bitvec = {"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                               "right_shift"};
  return bitvec.count(op0) == bitvec.count(op1);
}

// An operand a fold carries from the statement it came from into another one: the data tile
// keeps its text; a number prints as the author wrote it (`scale`) where that still means the same
// value there (emit_checked), else as its value; other kinds print from the form.
void carried(Arg& a) {
  if (a.name == "data") return;
  if (a.value.kind == Operand::Kind::Number) a.value.origin_moved = true;
  else a.value.origin = nullptr;
}

class FoldScalarOps : public Transform {
 public:
  std::string name() const override { return "fold_scalar_ops"; }
  std::string description() const override {
    return "merge two dependent scalar operations (or one and a reciprocal) into one two-op tensor_scalar";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      auto second = scalar_step(r.op());
      if (!second) continue;
      const OpRef* p = producer(k, an, r, second->data);
      if (!p) continue;
      auto first = scalar_step(p->op());
      if (!first || first->operand.kind != Operand::Kind::Number) continue;
      if (second->operand.kind != Operand::Kind::Number) continue;
      if (!same_alu_class(first->op, second->op)) continue;
      // A divide step (nl.divide(x, c)) has no tensor_scalar spelling (9.1); a reciprocal does
      // (op=nl.reciprocal with a dummy operand), priced as the unary step on its engine.
      if (!isa_operator(first->op) || !isa_operator(second->op)) continue;
      Operand data = *first->data;
      ScalarStep a = *first, b = *second;
      Site s = make_site(k, an, *p, fmt::format("fold `{}{}` and `{}` into one tensor_scalar", first->op,
                                                first->reverse ? " (reversed)" : "", second->op),
                         {{"ops", a.op + "+" + b.op}});
      const OpRef* target = &r;
      Gone gone = gone_of(*p);
      if (sink(s, [&k, target, data, a, b, gone] {
            std::vector<Arg> args = {arg("data", data), arg("op0", symbol(a.op)), arg("operand0", a.operand)};
            // (A unary step's dummy operand prints as the 1.0 it is, with no reverse flag.)
            if (a.reverse) args.push_back(arg("reverse0", symbol("True")));
            args.push_back(arg("op1", symbol(b.op)));
            args.push_back(arg("operand1", b.operand));
            if (b.reverse) args.push_back(arg("reverse1", symbol("True")));
            for (auto& x : args) carried(x);
            Op op = rebuild(target->op(), "nisa.tensor_scalar", std::move(args));
            say_result_dtype(k, op);
            replace(k, *target, std::move(op), {gone});
          }))
        return true;
    }
    return false;
  }
};


// `x - c`, `x + c` or `x * c` with c a column ([P, 1], broadcast along the rows) read only by an
// activation: (x, c, the operation). The column may be a tile operand of a tensor_scalar or of an
// `nl.*` binary operator.
struct ColumnStep {
  Operand x, c;
  std::string op;  // "add", "subtract" (x - c) or "multiply"
  bool subtract() const { return op == "subtract"; }
};
std::optional<ColumnStep> column_step(const Op& op, bool masked = false) {
  auto is_column = [](const Operand* o) {
    if (!o || o->kind != Operand::Kind::Tile) return false;
    auto s = o->access.tile_shape();
    return s.size() == 2 && s[1] == IExpr(1);
  };
  auto is_rows = [](const Operand* o, const Operand* c) {
    if (!o || o->kind != Operand::Kind::Tile) return false;
    auto s = o->access.tile_shape();
    return s.size() == 2 && s[0] == c->access.tile_shape()[0] && !(s[1] == IExpr(1));
  };
  auto known = [](const std::string& o) { return o == "add" || o == "subtract" || o == "multiply"; };
  if (auto st = scalar_step(op); st && !st->reverse && known(st->op) && is_column(&st->operand) &&
                                 is_rows(st->data, &st->operand))
    return ColumnStep{*st->data, st->operand, st->op};
  if (is_binary_language_op(op.api) && (masked || !op.has_mask)) {
    const Operand *x = operand(op, "x"), *y = operand(op, "y");
    std::string o = operator_symbol(op.api);
    if (known(o) && is_column(y) && is_rows(x, y)) return ColumnStep{*x, *y, o};
    if ((o == "add" || o == "multiply") && is_column(x) && is_rows(y, x)) return ColumnStep{*y, *x, o};
  }
  return std::nullopt;
}

class FoldScale : public Transform {
 public:
  std::string name() const override { return "fold_scale"; }
  std::string description() const override {
    return "fold a multiplication by a constant or a per-row column into the consuming activation's scale (one "
           "instruction fewer)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      // `nl.sqrt(x)` and its kin are the same Scalar Engine activation as `nisa.activation(op=nl.sqrt,
      // data=x)`; only the latter spells a scale, so the fold rewrites the former into it.
      const std::string func = nl_activation_function(r.op());
      if (r.op().api != "nisa.activation" && func.empty()) continue;
      const Operand* data = operand(r.op(), func.empty() ? "data" : "x");
      const Operand* scale = func.empty() ? operand(r.op(), "scale") : nullptr;
      if (scale && scale->kind != Operand::Kind::Number) continue;
      const OpRef* p = producer(k, an, r, data);
      if (!p) continue;
      auto factor = scale_factor(k, p->op(), scale ? scale->number : 1.0);
      if (!factor) continue;
      Site site = make_site(k, an, *p, fmt::format("fold `* {}` into the activation's scale", factor->what));
      const OpRef* target = &r;
      Gone gone = gone_of(*p);
      Operand x = factor->x, s = factor->scale;
      if (sink(site, [&k, target, x, s, gone, func] {
            if (!func.empty()) {
              replace(k, *target,
                      rebuild(target->op(), "nisa.activation", {arg("op", symbol(func)), arg("data", x), arg("scale", s)}),
                      {gone});
              return;
            }
            Op op = target->op();
            op.arg("data")->value = x;
            if (Arg* sc = op.arg("scale")) sc->value = s;
            else op.args.push_back(arg("scale", s));
            replace(k, *target, std::move(op), {gone});
          }))
        return true;
    }
    return false;
  }

 private:
  // What the activation computes with once the producer's multiplication moves into its scale: its
  // new data and scale. A number multiplies the activation's own scale; a per-row column (`[P, 1]`,
  // float32: the only vector scale the instruction takes, nki-language.md nisa.activation) replaces a
  // scale of 1 (a number and a column would need an instruction of their own to combine).
  struct Factor {
    Operand x, scale;
    std::string what;
  };
  static std::optional<Factor> scale_factor(const Kernel& k, const Op& producer, double own_scale) {
    if (auto step = scalar_step(producer); step && step->op == "multiply" && step->operand.kind == Operand::Kind::Number)
      return Factor{*step->data, number_operand(own_scale * step->operand.number), fmt::format("{}", step->operand.number)};
    auto col = column_step(producer);
    if (!col || col->op != "multiply" || own_scale != 1.0) return std::nullopt;
    if (k.tensor(col->c.access.tensor).dtype != "float32") return std::nullopt;
    return Factor{col->x, col->c, name_of(k, col->c)};
  }
};

// The activation function and scale of `act` when it is an activation without a bias of its own.
struct PlainActivation {
  std::string func;
  std::optional<Operand> scale;
};
std::optional<PlainActivation> unbiased_activation(const Kernel& k, const Analysis& an, const Op& act) {
  if (act.accumulate) return std::nullopt;
  if (act.api == "nisa.activation") {
    const Operand* scale = operand(act, "scale");
    if (operand(act, "reduce_res") || !zero_bias(k, an, act)) return std::nullopt;
    if (scale && scale->kind != Operand::Kind::Number) return std::nullopt;
    return PlainActivation{symbol_of(act, "op"), scale ? std::optional<Operand>(*scale) : std::nullopt};
  }
  std::string f = nl_activation_function(act);
  if (f.empty()) return std::nullopt;
  return PlainActivation{f, std::nullopt};
}

// Whether the producer of `x - c` can become `-c`: it returns a value of its own, or it writes an
// on-chip buffer destination-first (sole_producer made the activation the only reader of what it
// writes). A whole buffer of its own shrinks to the column in place; a slice of a row buffer
// (`dst=shifted[:, j * CH:(j + 1) * CH]`, a pass chunked along the row) gives way to a fresh column.
bool negation_fits(const Kernel& k, const Op& prod, const ColumnStep& step) {
  if (!step.subtract() || written_whole(k, prod) >= 0) return true;
  if (!prod.dst || !prod.dst_first || prod.accumulate) return false;
  const Tensor& t = k.tensor(prod.dst->tensor);
  return t.on_chip() && t.role == TensorRole::Buffer;
}

// The outermost loop around `prod` out of which the negation of column `c` may move: `c` does not
// move with it or any loop inside it, nothing in them writes `c`, and the producer is unmasked and
// its statement's only operation; -1 when none (the negation stays where the subtraction was).
int invariant_outer_loop(const Kernel& k, const Analysis& an, const OpRef& prod, const Access& c) {
  if (prod.op().has_mask || prod.node->ops.size() != 1) return -1;
  const auto writers = an.writers(k, c.tensor);
  int out = -1;
  for (auto it = prod.loops.rbegin(); it != prod.loops.rend(); ++it) {
    const int l = *it;
    const bool written = std::any_of(writers.begin(), writers.end(), [l](const OpRef* w) {
      return std::find(w->loops.begin(), w->loops.end(), l) != w->loops.end();
    });
    if (uses_loop(c, l) || written) break;
    out = l;
  }
  return out;
}

class FoldBias : public Transform {
 public:
  std::string name() const override { return "fold_bias"; }
  std::string description() const override {
    return "add a per-row column inside the consuming activation's bias (f(x - c) as activation(f, x, bias=-c)): "
           "the Vector Engine pass over the whole tile disappears";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      auto act = unbiased_activation(k, an, r.op());
      if (!act || act->func.empty()) continue;
      const Operand* data = operand(r.op(), r.op().api == "nisa.activation" ? "data" : "x");
      const OpRef* p = producer(k, an, r, data);
      if (!p || p->node->frozen) continue;
      // Masks (a library kernel's guard of a ragged tile on every instruction): the activation
      // keeps its own, so every element it computes must be one the producer computed.
      if (!mask_implies(r.op(), p->op())) continue;
      auto step = column_step(p->op(), true);
      if (!step || step->op == "multiply" || !negation_fits(k, p->op(), *step)) continue;
      // f(s * (x + c)) needs s * c as the bias, which no operation of the form computes; for
      // x - c the negation multiplies by -s (an outside author's online softmax scaled its exp:
      // the bias -c had made exp(s * x - c)).
      if (!step->subtract() && act->scale && act->scale->number != 1.0) continue;
      // A subtraction into a slice of a row buffer (a pass chunked along the row) negates the
      // column into a fresh one; once per chunk would cost more than the pass it saves, so the
      // negation moves out of the loops the column does not change in.
      const bool fresh = step->subtract() && written_whole(k, p->op()) < 0;
      const int hoist = fresh ? invariant_outer_loop(k, an, *p, step->c.access) : -1;
      Site site = make_site(k, an, *p,
                            fmt::format("compute {}({} {} {}) as one activation with the column as its bias", act->func,
                                        name_of(k, step->x), step->subtract() ? "-" : "+", name_of(k, step->c)));
      const OpRef *target = &r, *prod = p;
      if (sink(site, [&k, target, prod, step, act, fresh, hoist] { apply(k, *target, *prod, *step, *act, fresh, hoist); }))
        return true;
    }
    return false;
  }

 private:
  // `fresh`: the subtraction writes a slice of a row buffer, so the negated column is a tile of its
  // own (visit's finding); `hoist`: the loop before which it is computed (-1: where the subtraction was).
  static void apply(Kernel& k, const OpRef& target, const OpRef& prod, const ColumnStep& step, const PlainActivation& act,
                    bool fresh, int hoist) {
    Operand bias = step.c;
    std::vector<Gone> gone;
    // A fresh column's declaration (and, hoisted, its negation) go in after the rewrite: inserting
    // moves the nodes `target` points into.
    int declare_before = -1;
    std::optional<Op> moved_negation;
    if (step.subtract()) {
      // The producer becomes the negated column (what it writes, read only by the activation,
      // shrinks to the column's shape): bias = -c. A destination-first producer (the newer API's
      // `nisa.tensor_scalar(dst=shifted, ...)`) keeps writing its own buffer, redeclared; one that
      // writes a slice of a row buffer writes a fresh column declared just before it.
      const bool into_buffer = prod.op().result < 0;
      const Tensor& col = k.tensor(step.c.access.tensor);
      const std::string neg_name = col.name.empty() ? std::string("neg_bias") : "neg_" + col.name;
      int t = -1;
      if (fresh) {
        Tensor nt;
        nt.role = TensorRole::Buffer;
        nt.memory = Memory::Sbuf;
        nt.shape = step.c.access.tile_shape();
        nt.dtype = col.dtype;
        nt.name = fresh_loop_var(k, neg_name);
        int scope = -1;
        for (int l : prod.loops) {
          if (l == hoist) break;
          scope = l;
        }
        nt.scope_loop = scope;
        t = add_tensor(k, std::move(nt));
      } else {
        t = into_buffer ? prod.op().dst->tensor : prod.op().result;
        Tensor& neg = k.tensors[static_cast<size_t>(t)];
        neg.shape = step.c.access.tile_shape();
        neg.partition_dim = 0;
        neg.dim_text.clear();
        neg.dtype = col.dtype;
        if (!neg.name.empty()) neg.name = fresh_loop_var(k, neg_name);
      }
      // f(s * (x - c)) = f(s * x + bias) with bias = -s * c.
      const double by = -(act.scale ? act.scale->number : 1.0);
      Op negate = into_buffer ? rebuild(prod.op(), "nisa.tensor_scalar",
                                        {arg("data", step.c), arg("op0", symbol("multiply")),
                                         arg("operand0", number_operand(by))})
                              : rebuild(prod.op(), "nl.multiply", {arg("x", step.c), arg("y", number_operand(by))});
      negate.args[0].value.origin = nullptr;
      if (into_buffer) {
        negate.dst = whole_of(k, t);
        negate.dst_origin = nullptr;
      }
      Node& pn = *prod.node;
      if (fresh) declare_before = hoist >= 0 ? loop_node(k, hoist)->id : pn.id;
      if (fresh && hoist >= 0) {
        moved_negation = std::move(negate);
        gone.push_back(gone_of(prod));
      } else {
        pn.ops[prod.index] = std::move(negate);
        pn.dirty = true;
        if (into_buffer && !fresh) redeclare(k, {t});
      }
      bias = tile_operand(whole_of(k, t));
    } else {
      gone.push_back(gone_of(prod));
    }
    Operand x = step.x;
    std::vector<Arg> args = {arg("op", symbol(act.func)), arg("data", x), arg("bias", bias)};
    if (act.scale) args.push_back(arg("scale", *act.scale));
    replace(k, target, rebuild(target.op(), "nisa.activation", std::move(args)), std::move(gone));
    if (declare_before >= 0) {
      size_t at = 0;
      std::vector<Node>* block = parent_block(k.body, declare_before, at);
      std::vector<Node> fresh_nodes;
      fresh_nodes.push_back(declaration_node(k, bias.access.tensor));
      if (moved_negation) fresh_nodes.push_back(new_statement(k, {std::move(*moved_negation)}));
      block->insert(block->begin() + static_cast<long>(at), std::make_move_iterator(fresh_nodes.begin()),
                    std::make_move_iterator(fresh_nodes.end()));
    }
  }
};

class FoldScalarTensorTensor : public Transform {
 public:
  std::string name() const override { return "fold_scalar_tensor_tensor"; }
  std::string description() const override {
    return "merge a scalar operation and the tensor-tensor operation consuming it into one scalar_tensor_tensor "
           "instruction ((x op0 c) op1 y)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      auto b = binary(r.op());
      if (!b || b->op.empty() || b->x->access == b->y->access) continue;
      for (int side = 0; side < 2; ++side) {
        const Operand* mine = side == 0 ? b->x : b->y;
        const Operand* other = side == 0 ? b->y : b->x;
        const OpRef* p = producer(k, an, r, mine);
        if (!p) continue;
        auto step = scalar_step(p->op());
        if (!step || step->operand.kind != Operand::Kind::Number) continue;
        // scalar_tensor_tensor's result has its data's shape: a [P, 1] step (a softmax's
        // reciprocal of the row sums) into a product with a [P, F] tile is no such fold.
        if (step->data->kind == Operand::Kind::Tile && other->kind == Operand::Kind::Tile &&
            !(step->data->access.tile_shape() == other->access.tile_shape()))
          continue;
        if (!same_alu_class(step->op, b->op)) continue;
        // scalar_tensor_tensor takes binary ISA operators only: no divide (9.1), no unary step.
        if (!isa_operator(step->op) || !isa_operator(b->op) || step->op == "reciprocal") continue;
        // One instruction reads both tiles now: at most one of them may be in PSUM (the step's
        // data a matmul result, the other operand a PSUM accumulator: `nl.add(acc, low * alpha)`).
        auto in_psum = [&k](const Operand* o) {
          return o->kind == Operand::Kind::Tile && k.tensor(storage_of(k, o->access.tensor)).memory == Memory::Psum;
        };
        if (in_psum(step->data) && in_psum(other)) continue;
        bool reverse1 = side == 1 && !commutative(b->op);
        Operand x = *step->data, c = step->operand, y = *other;
        std::string op0 = step->op, op1 = b->op;
        bool reverse0 = step->reverse;
        Site s = make_site(k, an, *p, fmt::format("fold `{} {}` into the {} that reads it: one scalar_tensor_tensor",
                                                  op0, c.number, op1),
                           {{"ops", op0 + "+" + op1}});
        const OpRef* target = &r;
        Gone gone = gone_of(*p);
        if (sink(s, [&k, target, x, c, y, op0, op1, reverse0, reverse1, gone] {
              std::vector<Arg> args = {arg("data", x), arg("op0", symbol(op0)), arg("operand0", c),
                                       arg("op1", symbol(op1)), arg("operand1", y)};
              carried(args[2]);
              if (reverse0) args.push_back(arg("reverse0", symbol("True")));
              if (reverse1) args.push_back(arg("reverse1", symbol("True")));
              Op op = rebuild(target->op(), "nisa.scalar_tensor_tensor", std::move(args));
              say_result_dtype(k, op);
              replace(k, *target, std::move(op), {gone});
            }))
          return true;
      }
    }
    return false;
  }
};

class FoldReciprocal : public Transform {
 public:
  std::string name() const override { return "fold_reciprocal"; }
  std::string description() const override {
    return "divide by d directly instead of multiplying by reciprocal(d) (one instruction fewer)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& r : an.ops) {
      if (r.node->frozen) continue;
      auto b = binary(r.op());
      if (!b || b->op != "multiply") continue;
      for (int side = 0; side < 2; ++side) {
        const Operand* inv = side == 0 ? b->x : b->y;
        const Operand* num = side == 0 ? b->y : b->x;
        const OpRef* p = producer(k, an, r, inv);
        if (!p || (p->op().api != "nisa.reciprocal" && p->op().api != "nl.reciprocal")) continue;
        auto step = scalar_step(p->op());
        if (!step) continue;
        Operand n = *num, d = *step->data;
        Site s = make_site(k, an, *p, fmt::format("divide {} by {} instead of multiplying by its reciprocal",
                                                  name_of(k, n), name_of(k, d)));
        const OpRef* target = &r;
        Gone gone = gone_of(*p);
        // The language nl.divide, whatever the multiply's spelling: a nisa.tensor_tensor(op=divide)
        // does not compile (divide is no ISA operator, nki-language.md 9.1). A multiply pinned to
        // an engine (engine=), or written destination-first, is no site: nl.divide takes no engine
        // and returns its tile.
        if (r.op().api == "nisa.tensor_tensor" && (r.op().engine_explicit || r.op().dst_first)) continue;
        if (sink(s, [&k, target, n, d, gone] {
              Op op = rebuild(target->op(), "nl.divide", {arg("x", n), arg("y", d)});
              replace(k, *target, std::move(op), {gone});
            }))
          return true;
      }
    }
    return false;
  }
};

}  // namespace

// The activation function an `nl.*` unary call computes when it is one `nisa.activation` accepts as
// its `op` (nki-language.md 9.2), else "". `nl.copy` lifts as a copy, not an activation, so it is
// not listed. The list is local: the loop-nest module depends on the language core only, not on
// the interpreter library's operator table (nki/lib/alu_ops).
std::string nl_activation_function(const Op& op) {
  static const std::set<std::string> functions = {
      "square", "sigmoid", "relu", "gelu", "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid", "silu", "silu_dx",
      "tanh", "softplus", "mish", "erf", "erf_dx", "exp", "log", "sin", "arctan", "sqrt", "rsqrt", "reciprocal", "sign",
      "abs"};
  if (op.cls != OpClass::Activation || op.api.rfind("nl.", 0) != 0) return "";
  std::string f = op.api.substr(3);
  return functions.count(f) ? f : "";
}

std::unique_ptr<Transform> make_fold_silu() { return std::make_unique<FoldSilu>(); }
std::unique_ptr<Transform> make_fold_scalar_ops() { return std::make_unique<FoldScalarOps>(); }
std::unique_ptr<Transform> make_fold_scale() { return std::make_unique<FoldScale>(); }
std::unique_ptr<Transform> make_fold_scalar_tensor_tensor() { return std::make_unique<FoldScalarTensorTensor>(); }
std::unique_ptr<Transform> make_fold_reciprocal() { return std::make_unique<FoldReciprocal>(); }
std::unique_ptr<Transform> make_fold_bias() { return std::make_unique<FoldBias>(); }

}  // namespace loopnest
