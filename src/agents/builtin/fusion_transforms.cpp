// Transformations that merge instructions: the silu/sigmoid chains as one activation, two
// tensor_scalar ops as one, a constant multiply into an activation's scale, a reciprocal and its
// consumer into a division, and a division by a constant as a multiplication.
#include <cmath>
#include <set>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

bool const_equals(const Expr* e, double v) {
  double c;
  return e && constant_value(*e, c) && c == v;
}

// Keyword names of a call, all given by keyword and all within `allowed`.
bool keywords_within(const CallExpr& call, std::initializer_list<const char*> allowed) {
  if (!call.args.empty()) return false;
  for (const auto& k : call.keywords) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k.name == a;
    if (!ok) return false;
  }
  return true;
}

// `x + 1` style: tensor_scalar(data=e, op0=nl.add, operand0=1.0) or nl.add(e, 1.0).
bool is_add_one(Expr* v, const std::string& e) {
  if (auto* c = as_call(v, "nisa.tensor_scalar")) {
    auto *data = argument(*c, "data", 0), *op = argument(*c, "op0", 1), *operand = argument(*c, "operand0", 2);
    // Only the step: a reverse flag, a dtype or a mask would not survive the rewrite.
    for (const auto& k : c->keywords)
      if (k.name != "data" && k.name != "op0" && k.name != "operand0") return false;
    return data && op && operand && c->args.size() <= 3 && is_name(**data, e) && text(**op) == "nl.add" &&
           const_equals(operand->get(), 1.0);
  }
  if (auto* c = as_call(v, "nl.add")) {
    if (c->args.size() != 2 || !c->keywords.empty()) return false;
    return (is_name(*c->args[0], e) && const_equals(c->args[1].get(), 1.0)) ||
           (is_name(*c->args[1], e) && const_equals(c->args[0].get(), 1.0));
  }
  return false;
}

// `reciprocal(d)` with nothing else: a dtype= (an int32 result truncates) or a mask= would be
// dropped by the folds that print the reciprocal inside another call.
bool is_reciprocal_of(Expr* v, const std::string& d) {
  CallExpr* c = as_call(v, "nisa.reciprocal");
  const char* param = "data";
  if (!c) c = as_call(v, "nl.reciprocal"), param = "x";
  if (!c || c->args.size() + c->keywords.size() != 1) return false;
  auto* data = argument(*c, param, 0);
  return data && is_name(**data, d);
}

// Whether a statement strictly between `from` and `to` of `b` may change what one of `names` holds
// there: it binds one (`t = ...`, `t += ...`), stores into one (`t[...] = ...`), or, any other
// statement, mentions one (a destination-first call, a loop). A fold that moves an expression
// reading those names from `from` to `to` would read other values.
bool changed_between(Block& b, size_t from, size_t to, const std::set<std::string>& names) {
  for (size_t k = from + 1; k < to && k < b.size(); ++k) {
    Stmt& s = *b[k];
    std::set<std::string> touched;
    if (s.kind == StmtKind::Assign) {
      for (auto& t : static_cast<AssignStmt&>(s).targets) touched.merge(names_in(*t));
    } else if (s.kind == StmtKind::AugAssign) {
      touched = names_in(*static_cast<AugAssignStmt&>(s).target);
    } else {
      touched = names_in(s);
    }
    if (intersects(touched, names)) return true;
  }
  return false;
}

// The other operand of nl.multiply(a, b) when one of them is the name `id`; null otherwise.
Expr* multiply_partner(Expr* v, const std::string& id) {
  auto* c = as_call(v, "nl.multiply");
  if (!c || c->args.size() != 2 || !c->keywords.empty()) return nullptr;
  if (is_name(*c->args[1], id)) return c->args[0].get();
  if (is_name(*c->args[0], id)) return c->args[1].get();
  return nullptr;
}

// A bias that adds nothing: the constant 0, or a name bound once, to a zero memset
// (`nisa.memset(shape=..., value=0.0)`, `nl.zeros(...)`).
bool zero_column(Block& kernel, const Expr& bias) {
  if (const_equals(&bias, 0.0)) return true;
  if (bias.kind != ExprKind::Name) return false;
  const std::string name = text(bias);
  int bindings = 0;
  bool zero = false;
  for_each_block(kernel, [&](Block& b) {
    for (auto& s : b) {
      if (s->kind == StmtKind::AugAssign && names_in(*static_cast<AugAssignStmt&>(*s).target).count(name)) ++bindings;
      if (s->kind != StmtKind::Assign) continue;
      bool binds = false;
      for (auto& t : static_cast<AssignStmt&>(*s).targets) binds = binds || names_in(*t).count(name) > 0;
      if (!binds) continue;
      ++bindings;
      Expr* v = assigned_value(*s);
      if (!v) continue;
      if (as_call(v, "nl.zeros")) zero = true;
      if (auto* m = as_call(v, "nisa.memset")) {
        ExprPtr* value = argument(*m, "value", 1);
        zero = value && const_equals(value->get(), 0.0);
      }
    }
  });
  return bindings == 1 && zero;
}

class FuseSilu : public MatchingTransform {
 public:
  std::string name() const override { return "fuse_silu"; }
  std::string description() const override {
    return "replace the exp(-x) -> +1 -> reciprocal (-> *x) chain by one sigmoid or silu activation "
           "(an exact equivalent on the Scalar Engine)";
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
  bool match_at(Block& kernel, Block& b, size_t i, const SiteSink& sink) const {
    std::string e = assigned_name(*b[i]);
    auto* act = as_call(assigned_value(*b[i]), "nisa.activation");
    if (e.empty() || !act || count_uses(kernel, e) != 2) return false;
    // exp(-x) alone: a bias (exp(b - x)), a mask or a dtype would not survive the rewrite; a zero
    // bias (the bundled kernels' memset column) is none.
    if (!keywords_within(*act, {"op", "data", "scale", "bias"})) return false;
    if (auto* bias = argument(*act, "bias"); bias && !zero_column(kernel, **bias)) return false;
    auto *op = argument(*act, "op"), *data = argument(*act, "data"), *scale = argument(*act, "scale");
    if (!op || !data || !scale || text(**op) != "nl.exp" || !const_equals(scale->get(), -1.0)) return false;
    std::string x = text(**data);
    const std::set<std::string> x_names = names_in(**data);
    size_t j = next_use(b, i, e);
    if (j == b.size() || !is_add_one(assigned_value(*b[j]), e)) return false;
    std::string d = assigned_name(*b[j]);
    size_t k = next_use(b, j, d);
    if (d.empty() || count_uses(kernel, d) != 2 || k == b.size() || !is_reciprocal_of(assigned_value(*b[k]), d))
      return false;
    std::string inv = assigned_name(*b[k]);
    if (inv.empty()) return false;
    size_t l = next_use(b, k, inv);
    bool silu = count_uses(kernel, inv) == 2 && l < b.size() && b[l]->kind == StmtKind::Assign &&
                multiply_partner(static_cast<AssignStmt&>(*b[l]).value.get(), inv) &&
                text(*multiply_partner(static_cast<AssignStmt&>(*b[l]).value.get(), inv)) == x;
    if (changed_between(b, i, silu ? l : k, x_names)) return false;
    std::string func = silu ? "silu" : "sigmoid";
    Site site = make_site(*b[i], fmt::format("compute {}({}) with one activation instead of {} instructions", func, x,
                                             silu ? 4 : 3),
                          {{"func", func}});
    return sink(std::move(site), [&b, i, j, k, l, silu, x, func] {
      size_t target = silu ? l : k;
      static_cast<AssignStmt&>(*b[target]).value = parse_expr(fmt::format("nisa.activation(op=nl.{}, data={})", func, x));
      if (silu) erase_stmt(b, k);
      erase_stmt(b, j);
      erase_stmt(b, i);
    });
  }
};

// tensor_scalar(data=X, op0=O, operand0=C) with only these keywords.
bool simple_tensor_scalar(Expr* v, std::string& data, std::string& op, std::string& operand) {
  auto* c = as_call(v, "nisa.tensor_scalar");
  if (!c || !keywords_within(*c, {"data", "op0", "operand0"})) return false;
  auto *d = argument(*c, "data"), *o = argument(*c, "op0"), *x = argument(*c, "operand0");
  if (!d || !o || !x) return false;
  data = text(**d), op = text(**o), operand = text(**x);
  return true;
}

// The names a simple tensor_scalar reads (its data and operand0): what a fold moves with it.
std::set<std::string> step_reads(Expr* v) {
  std::set<std::string> out;
  auto* c = as_call(v, "nisa.tensor_scalar");
  for (const char* p : {"data", "operand0"})
    if (ExprPtr* e = c ? argument(*c, p) : nullptr) out.merge(names_in(**e));
  return out;
}

// A second step applied to `a`: a simple tensor_scalar on it, nl.add/multiply/subtract(a, const),
// or a reciprocal: the unary ALU operator nl.reciprocal with a dummy operand (nki-language.md 9.1),
// not `1.0 divide a`, since divide is no ISA operator (9.1; the interpreter refuses it).
bool second_step(Expr* v, const std::string& a, std::string& op, std::string& operand, bool& reverse) {
  std::string data;
  reverse = false;
  if (simple_tensor_scalar(v, data, op, operand)) return data == a;
  if (is_reciprocal_of(v, a)) {
    op = "nl.reciprocal", operand = "1.0", reverse = false;
    return true;
  }
  for (const char* f : {"nl.add", "nl.multiply", "nl.subtract"}) {
    auto* c = as_call(v, f);
    double value;
    if (c && c->args.size() == 2 && c->keywords.empty() && is_name(*c->args[0], a) &&
        constant_value(*c->args[1], value)) {
      op = f, operand = text(*c->args[1]);
      return true;
    }
  }
  return false;
}

class FoldTensorScalar : public MatchingTransform {
 public:
  std::string name() const override { return "fold_tensor_scalar"; }
  std::string description() const override {
    return "merge two dependent scalar operations (or an op and a reciprocal) into one two-op tensor_scalar";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string a = assigned_name(*b[i]), data, op0, operand0, op1, operand1;
        bool reverse = false;
        if (a.empty() || !simple_tensor_scalar(assigned_value(*b[i]), data, op0, operand0)) continue;
        if (count_uses(kernel, a) != 2) continue;
        size_t j = next_use(b, i, a);
        if (j == b.size() || b[j]->kind != StmtKind::Assign) continue;
        Expr* second = static_cast<AssignStmt&>(*b[j]).value.get();
        if (!second_step(second, a, op1, operand1, reverse)) continue;
        // The first step's data and operand are read at the second step's place now.
        if (changed_between(b, i, j, step_reads(assigned_value(*b[i])))) continue;
        std::string fused = fmt::format("nisa.tensor_scalar(data={}, op0={}, operand0={}, op1={}, operand1={}{})", data,
                                        op0, operand0, op1, operand1, reverse ? ", reverse1=True" : "");
        Site site = make_site(*b[i], fmt::format("fold `{}` and the next op on it into one instruction: {}", brief(*b[i]),
                                                 fused));
        if (sink(std::move(site), [&b, i, j, fused] {
              static_cast<AssignStmt&>(*b[j]).value = parse_expr(fused);
              erase_stmt(b, i);
            }))
          return true;
      }
      return false;
    });
  }
};

class FoldIntoActivation : public MatchingTransform {
 public:
  std::string name() const override { return "fold_into_activation"; }
  std::string description() const override {
    return "fold a multiply by a constant into the consuming activation's scale (one instruction fewer)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string a = assigned_name(*b[i]), data, op, operand;
        if (a.empty() || !simple_tensor_scalar(assigned_value(*b[i]), data, op, operand) || op != "nl.multiply") continue;
        if (count_uses(kernel, a) != 2) continue;
        size_t j = next_use(b, i, a);
        if (j == b.size()) continue;
        auto* act = as_call(assigned_value(*b[j]), "nisa.activation");
        if (!act || !act->args.empty()) continue;
        auto *d = argument(*act, "data"), *scale = argument(*act, "scale");
        if (!d || !is_name(**d, a)) continue;
        if (changed_between(b, i, j, step_reads(assigned_value(*b[i])))) continue;
        // Both factors parenthesized (the printer keeps only the parentheses the precedence
        // needs): an operand `lo + hi` times the scale s is (lo + hi) * s, not lo + hi * s.
        std::string new_scale = scale ? fmt::format("({}) * ({})", operand, text(**scale)) : operand;
        Site site = make_site(*b[i], fmt::format("fold `{}` into the activation's scale ({})", brief(*b[i]), new_scale));
        if (sink(std::move(site), [&b, i, j, data, new_scale] {
              auto* call = static_cast<CallExpr*>(assigned_value(*b[j]));
              set_keyword(*call, "data", parse_expr(data));
              set_keyword(*call, "scale", parse_expr(new_scale));
              erase_stmt(b, i);
            }))
          return true;
      }
      return false;
    });
  }
};

// sq = activation(op=F, data=X); total = tensor_reduce(nl.add, data=sq, axis=[1], keepdims=True)
//   -> total = nl.ndarray((X.shape[0], 1), ...); sq = activation_reduce(..., reduce_res=total)
// The Scalar Engine reduces while it writes, so the Vector Engine pass over the tile disappears.
class FuseActivationReduce : public MatchingTransform {
 public:
  std::string name() const override { return "fuse_activation_reduce"; }
  std::string description() const override {
    return "let the activation accumulate the row sum (activation_reduce) instead of a separate tensor_reduce";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string sq = assigned_name(*b[i]);
        auto* act = as_call(assigned_value(*b[i]), "nisa.activation");
        // `sq` may have more uses after the reduce (softmax: exp feeds the sum and the normalization):
        // activation_reduce still returns the activation's output.
        if (sq.empty() || !act || !act->args.empty() || argument(*act, "reduce_res") || count_uses(kernel, sq) < 2)
          continue;
        auto *op = argument(*act, "op"), *data = argument(*act, "data");
        size_t j = next_use(b, i, sq);
        if (!op || !data || j == b.size()) continue;
        std::string total = assigned_name(*b[j]);
        auto* red = as_call(assigned_value(*b[j]), "nisa.tensor_reduce");
        if (total.empty() || !red) continue;
        auto *rop = argument(*red, "op", 0), *rdata = argument(*red, "data", 1), *axis = argument(*red, "axis", 2),
             *keep = argument(*red, "keepdims");
        if (!rop || !rdata || !axis || !keep || text(**rop) != "nl.add" || !is_name(**rdata, sq) ||
            text(**axis) != "[1]" || text(**keep) != "True")
          continue;
        bool total_free = true;  // the accumulator is declared earlier: nothing in between may use its name
        for (size_t k = i; k < j; ++k) total_free = total_free && count_uses(*b[k], total) == 0;
        if (!total_free) continue;
        std::string decl = fmt::format("{} = nl.ndarray(({}.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)", total,
                                       text(**data));
        Site site = make_site(*b[i], fmt::format("accumulate `{}` inside the activation `{}`", total, brief(*b[i])));
        if (sink(std::move(site), [&b, act, i, j, decl, total] {
              static_cast<AttributeExpr&>(*act->func).attr = "activation_reduce";
              set_keyword(*act, "reduce_op", parse_expr("nl.add"));
              set_keyword(*act, "reduce_res", parse_expr(total));
              erase_stmt(b, j);
              b.insert(b.begin() + static_cast<long>(i), parse_stmt(decl));
            }))
          return true;
      }
      return false;
    });
  }
};

class AlgebraicSimplify : public MatchingTransform {
 public:
  std::string name() const override { return "algebraic_simplify"; }
  std::string description() const override {
    return "a division by a constant becomes a multiplication; x * reciprocal(y) becomes one division";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i)
        if (divide_by_constant(b, i, sink) || multiply_by_reciprocal(kernel, b, i, sink)) return true;
      return false;
    });
  }

 private:
  static bool divide_by_constant(Block& b, size_t i, const SiteSink& sink) {
    if (b[i]->kind != StmtKind::Assign) return false;
    Expr* v = static_cast<AssignStmt&>(*b[i]).value.get();
    double c;
    if (auto* call = as_call(v, "nl.divide"); call && call->args.size() == 2 && constant_value(*call->args[1], c) && c != 0) {
      Site site = make_site(*b[i], fmt::format("multiply by {} instead of dividing by {}", format_number(1 / c),
                                               format_number(c)), {{"rule", "div_const"}});
      return sink(std::move(site), [call, c] {
        static_cast<AttributeExpr&>(*call->func).attr = "multiply";
        call->args[1] = number_expr(1 / c);
      });
    }
    auto* ts = as_call(v, "nisa.tensor_scalar");
    if (!ts) return false;
    auto *op = argument(*ts, "op0", 1), *operand = argument(*ts, "operand0", 2), *rev = argument(*ts, "reverse0", 3);
    if (!op || !operand || text(**op) != "nl.divide" || !constant_value(**operand, c) || c == 0) return false;
    if (rev && text(**rev) != "False") return false;
    Site site = make_site(*b[i], fmt::format("tensor_scalar: multiply by {} instead of dividing by {}",
                                             format_number(1 / c), format_number(c)), {{"rule", "div_const"}});
    return sink(std::move(site), [op, operand, c] {
      *op = parse_expr("nl.multiply");
      *operand = number_expr(1 / c);
    });
  }

  static bool multiply_by_reciprocal(Block& kernel, Block& b, size_t i, const SiteSink& sink) {
    std::string inv = assigned_name(*b[i]);
    auto* rc = as_call(assigned_value(*b[i]), "nisa.reciprocal");
    if (inv.empty() || !rc || count_uses(kernel, inv) != 2) return false;
    auto* d = argument(*rc, "data", 0);
    if (!d) return false;
    std::string denom = text(**d);
    size_t j = next_use(b, i, inv);
    if (j == b.size() || b[j]->kind != StmtKind::Assign) return false;
    Expr* partner = multiply_partner(static_cast<AssignStmt&>(*b[j]).value.get(), inv);
    if (!partner) return false;
    std::string num = text(*partner);
    Site site = make_site(*b[i], fmt::format("divide {} by {} directly instead of multiplying by its reciprocal", num,
                                             denom), {{"rule", "mul_recip"}});
    return sink(std::move(site), [&b, i, j, num, denom] {
      static_cast<AssignStmt&>(*b[j]).value = parse_expr(fmt::format("nl.divide({}, {})", num, denom));
      erase_stmt(b, i);
    });
  }
};

}  // namespace

std::unique_ptr<Transform> make_fuse_silu() { return std::make_unique<FuseSilu>(); }
std::unique_ptr<Transform> make_fold_tensor_scalar() { return std::make_unique<FoldTensorScalar>(); }
std::unique_ptr<Transform> make_fold_into_activation() { return std::make_unique<FoldIntoActivation>(); }
std::unique_ptr<Transform> make_fuse_activation_reduce() { return std::make_unique<FuseActivationReduce>(); }
std::unique_ptr<Transform> make_algebraic_simplify() { return std::make_unique<AlgebraicSimplify>(); }

}  // namespace agents::builtin
