// fold_scale_through_reduce: a scaled tile read by an activation and by a row reduction,
//
//   s_t = x * c                       (c > 0; any c != 0 for a sum)
//   m   = max(s_t, axis=1)            (max / min / sum along the free axis)
//   nm  = m * k                       (every reader of m multiplies it by a number)
//   e   = activation(f, s_t, bias=nm, scale=a)
//
// becomes m = max(x), nm = m * (k * c), e = activation(f, x, bias=nm, scale=a * c): max(c x) =
// c max(x) for c > 0 and sum(c x) = c sum(x), so every value is the same, and the Vector Engine
// pass that scaled the whole tile disappears (the scale rides on the activation, the [P, 1]
// multiply that negated the row statistic takes the factor). An attention or softmax kernel that
// scales its scores by 1/sqrt(d) before the max subtraction is this shape once fold_bias has made
// the subtraction the activation's bias. fold_scale cannot take it: the reduction also reads s_t.
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/scalar_step.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

const Operand* tile_param(const Op& op, const char* name) {
  const Operand* o = operand(op, name);
  return o && o->kind == Operand::Kind::Tile ? o : nullptr;
}

// `data * number` (tensor_scalar multiply with one step, or nl.multiply of a tile and a number).
struct Scaling {
  Operand data;
  double factor = 0;
  std::string number_param;  // where the number sits: operand0, x or y
};
std::optional<Scaling> scaling(const Op& op) {
  if (op.has_mask || op.accumulate) return std::nullopt;
  if (op.api != "nisa.tensor_scalar" && op.api != "nl.multiply") return std::nullopt;
  auto st = scalar_step(op);
  if (!st || st->op != "multiply" || st->operand.kind != Operand::Kind::Number) return std::nullopt;
  const char* number_param = op.api == "nisa.tensor_scalar" ? "operand0" : st->data_param == "x" ? "y" : "x";
  return Scaling{*st->data, st->operand.number, number_param};
}

// The reduction operator of a row reduction (tensor_reduce or nl.max / nl.min / nl.sum), "" if none.
std::string row_reduction(const Op& op) {
  if (op.has_mask) return "";
  if (op.api == "nisa.tensor_reduce") {
    const Operand* neg = operand(op, "negate");
    if (neg && neg->kind == Operand::Kind::Symbol && neg->symbol == "True") return "";  // -max
    return symbol_of(op, "op");
  }
  if (op.api == "nl.max") return "max";
  if (op.api == "nl.min") return "min";
  if (op.api == "nl.sum") return "add";
  return "";
}
const char* reduction_data(const Op& op) { return op.api == "nisa.tensor_reduce" ? "data" : "x"; }

// An activation whose data the fold may replace and whose scale is a number (or absent).
bool scalable_activation(const Op& op) {
  if (op.has_mask || op.accumulate) return false;
  if (op.api == "nisa.activation" || op.api == "nisa.activation_reduce") {
    const Operand* s = operand(op, "scale");
    return !s || s->kind == Operand::Kind::Number;
  }
  return !nl_activation_function(op).empty();
}

class FoldScaleThroughReduce : public Transform {
 public:
  std::string name() const override { return "fold_scale_through_reduce"; }
  std::string description() const override {
    return "scale inside the activation and on the row statistic instead of a pass over the whole tile "
           "(max(c x) = c max(x) for c > 0): one Vector Engine pass fewer";
  }

 protected:
  // One scaling with what reads it: the activations, the row reductions, the statistic's users.
  struct Group {
    const OpRef* prod = nullptr;
    Scaling sc;
    std::vector<const OpRef*> acts, reds, muls;
  };

  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    std::vector<Group> groups;
    for (const OpRef& p : an.ops)
      if (auto g = group_of(k, an, p)) groups.push_back(*g);
    if (groups.empty()) return false;
    // Every group at once: copies of one row's softmax (jam_rows) are one move, not one per copy.
    const std::string where = groups.size() == 1 ? "" : fmt::format(" (at {} places)", groups.size());
    Site site = make_site(k, an, *groups.front().prod,
                          fmt::format("scale by {} in the activation and on the row statistic instead of a pass over "
                                      "the tile{}",
                                      groups.front().sc.factor, where));
    if (groups.size() > 1) site.params["places"] = std::to_string(groups.size());
    return sink(site, [&k, groups] { apply(k, groups); });
  }

 private:
  static std::optional<Group> group_of(Kernel& k, const Analysis& an, const OpRef& p) {
    if (p.node->frozen || p.node->ops.size() != 1) return std::nullopt;
    auto sc = scaling(p.op());
    const int t = written_whole(k, p.op());
    if (!sc || t < 0 || sc->factor == 0 || storage_of(k, t) != t || !keeps_its_value(k, p.op())) return std::nullopt;
    if (an.writers(k, t).size() != 1) return std::nullopt;
    // x keeps its value from the scaling to every reader: written only before it, in its block
    // or in loops nested there (a score row filled chunk by chunk), never again in the iteration.
    const int x = storage_of(k, sc->data.access.tensor);
    bool ok = k.tensor(x).on_chip();
    for (const OpRef* w : an.writers(k, x))
      ok = ok && w->order < p.order && w->loops.size() >= p.loops.size() &&
           std::equal(p.loops.begin(), p.loops.end(), w->loops.begin());
    if (!ok) return std::nullopt;
    Group g{&p, *sc, {}, {}, {}};
    for (const OpRef* r : an.readers(k, t)) {
      ok = ok && !r->node->frozen && r->block == p.block && r->position > p.position;
      const std::string red = ok ? row_reduction(r->op()) : "";
      const Operand* rd = red.empty() ? nullptr : tile_param(r->op(), reduction_data(r->op()));
      if (rd && rd->access == whole_of(k, t) && (red == "add" || ((red == "max" || red == "min") && sc->factor > 0))) {
        const int m = written_whole(k, r->op());
        ok = ok && m >= 0 && an.writers(k, m).size() == 1;
        for (const OpRef* u : ok ? an.readers(k, m) : std::vector<const OpRef*>{}) {
          auto us = scaling(u->op());
          ok = ok && !u->node->frozen && us && us->data.access == whole_of(k, m);
          g.muls.push_back(u);
        }
        g.reds.push_back(r);
        continue;
      }
      const char* dp = r->op().api.rfind("nisa.", 0) == 0 ? "data" : "x";
      const Operand* ad = tile_param(r->op(), dp);
      ok = ok && scalable_activation(r->op()) && ad && ad->access == whole_of(k, t);
      g.acts.push_back(r);
    }
    if (!ok || g.acts.empty() || g.reds.empty()) return std::nullopt;
    return g;
  }

  // Every group's readers rewritten first, then the scalings erased by node id (erasing moves the
  // nodes the other groups' references point into).
  static void apply(Kernel& k, const std::vector<Group>& groups) {
    std::vector<int> gone;
    for (const Group& g : groups) {
      rewrite_readers(g);
      gone.push_back(g.prod->node->id);
    }
    for (int id : gone) erase_node(k, id);
  }

  static void rewrite_readers(const Group& g) {
    const Scaling& sc = g.sc;
    for (const OpRef* r : g.reds) {
      r->op().arg(reduction_data(r->op()))->value = sc.data;
      r->node->dirty = true;
    }
    for (const OpRef* u : g.muls) {
      auto us = scaling(u->op());
      Operand& n = u->op().arg(us->number_param.c_str())->value;
      n.number *= sc.factor;
      n.origin = nullptr;
      u->node->dirty = true;
    }
    for (const OpRef* a : g.acts) {
      Op& op = a->op();
      const std::string func = nl_activation_function(op);
      if (!func.empty()) {
        op = rebuild(op, "nisa.activation", {arg("op", symbol(func)), arg("data", sc.data), arg("scale", number_operand(sc.factor))});
      } else {
        op.arg("data")->value = sc.data;
        if (Arg* s = op.arg("scale")) {
          s->value.number *= sc.factor;
          s->value.origin = nullptr;
        } else {
          op.args.push_back(arg("scale", number_operand(sc.factor)));
        }
      }
      a->node->dirty = true;
    }
  }
};

}  // namespace

std::unique_ptr<Transform> make_fold_scale_through_reduce() { return std::make_unique<FoldScaleThroughReduce>(); }

}  // namespace loopnest
