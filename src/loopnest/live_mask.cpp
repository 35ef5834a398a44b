#include "loopnest/live_mask.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace loopnest {

std::vector<Constraint> live_constraints(const std::vector<Constraint>& mask, const std::vector<std::vector<IExpr>>& tiles,
                                         const Ranges& ranges) {
  std::vector<Constraint> out;
  for (const Constraint& c : mask) {
    auto range = c.expr.bounds(ranges);
    for (const auto& [axis, coeff] : c.axes) {
      if (!range) break;
      std::optional<int64_t> extent;
      for (const auto& shape : tiles) {
        if (axis < 0 || static_cast<size_t>(axis) >= shape.size()) continue;
        auto b = shape[static_cast<size_t>(axis)].bounds(ranges);
        if (!b) {
          extent.reset();
          break;
        }
        extent = std::max(extent.value_or(0), b->second);
      }
      if (!extent || *extent < 1) {
        range.reset();
        break;
      }
      int64_t a = 0, b = coeff * (*extent - 1);
      range->first += std::min(a, b);
      range->second += std::max(a, b);
    }
    bool always = range && holds(range->first, c.cmp, 0) && holds(range->second, c.cmp, 0) &&
                  (c.cmp != Cmp::Eq || range->first == range->second) && (c.cmp != Cmp::Ne || range->first > 0 || range->second < 0);
    if (!always) out.push_back(c);
  }
  return out;
}

void drop_dead_constraints(Op& op, const Access* dst, const Ranges& ranges) {
  if (op.mask.empty()) return;
  std::vector<std::vector<IExpr>> tiles;
  if (dst) tiles.push_back(dst->tile_shape());
  for (const Arg& a : op.args)
    if (a.value.kind == Operand::Kind::Tile) tiles.push_back(a.value.access.tile_shape());
  op.mask = live_constraints(op.mask, tiles, ranges);
  op.has_mask = !op.mask.empty();
}

void drop_dead_mask_constraints(Kernel& k) {
  const Ranges ranges = k.ranges();
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& nodes) {
    for (Node& n : nodes) {
      for (Op& op : n.ops) drop_dead_constraints(op, op.dst ? &*op.dst : nullptr, ranges);
      walk(n.body);
      walk(n.orelse);
    }
  };
  walk(k.body);
}

}  // namespace loopnest
