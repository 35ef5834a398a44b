// Moves inside a helper's body, printed in that body (helper_bodies.h).
#include "loopnest/helper_bodies.h"

#include <functional>
#include <optional>

#include <fmt/core.h>

#include "loopnest/node_lookup.h"

namespace loopnest {

namespace {

bool opens(const Node& n) { return openable_kind(n).has_value(); }

void unfreeze_body(std::vector<Node>& nodes) {
  for (auto& n : nodes) {
    // A comprehension's items print only as its one statement; a statement without its own text
    // (a lambda's expression) has nowhere to print a change.
    if (n.kind == NodeKind::Inline && !opens(n)) continue;
    if (n.kind == NodeKind::Stmt && !n.origin) continue;
    n.frozen = false;
    unfreeze_body(n.body);
    unfreeze_body(n.orelse);
  }
}

// The operation an anchor names without its place (`85x2/ts(multiply)#1` -> `ts(multiply)`).
std::string anchor_operation(const std::string& anchor) {
  std::string op = anchor.substr(anchor.find('/') + 1);
  return op.substr(0, op.rfind('#'));
}

// Which of the sites of one move, parameters and operation at one node `s` is: a statement may
// hold two multiplies by a scalar, each its own site.
int rank_at_node(const std::vector<Site>& sites, const Site& s) {
  int rank = 0;
  for (const auto& x : sites) {
    if (x.node != s.node || x.params != s.params || anchor_operation(x.anchor) != anchor_operation(s.anchor))
      continue;
    if (x.anchor == s.anchor && x.params == s.params) return rank;
    ++rank;
  }
  return -1;
}

}  // namespace

int unfreeze_helper_bodies(Kernel& k) {
  int count = 0;
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& block) {
    for (auto& n : block) {
      if (n.kind == NodeKind::Inline && opens(n)) {
        // The Inline node itself stays frozen: its own operations are the calling statement's,
        // printed only as written.
        bool work = false;
        for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { work = work || !x.ops.empty(); });
        if (!work) continue;
        unfreeze_body(n.body);
        ++count;
        continue;
      }
      if (n.frozen) continue;
      walk(n.body);
      walk(n.orelse);
    }
  };
  walk(k.body);
  return count;
}

std::vector<int> helper_body_nodes(const Kernel& k) {
  std::vector<int> out;
  std::function<void(const std::vector<Node>&, bool)> walk = [&](const std::vector<Node>& block, bool inside) {
    for (const auto& n : block) {
      if (inside) out.push_back(n.id);
      const bool in = inside || (n.kind == NodeKind::Inline && opens(n));
      walk(n.body, in);
      walk(n.orelse, in);
    }
  };
  walk(k.body, false);
  return out;
}

namespace {

// `site` as found on `k`: by its node id (the same lift), else by its anchor (a key read back from
// its text has no node id), the parameters equal.
std::optional<Site> found_again(const Kernel& k, const Transform& t, const Site& site) {
  const std::vector<Site> found = t.find(k);
  for (bool by_node : {true, false})
    for (const auto& s : found)
      if (s.params == site.params && s.anchor == site.anchor && (!by_node || (site.node >= 0 && s.node == site.node)))
        return s;
  return std::nullopt;
}

}  // namespace

void apply_at_every_call(Kernel& k, const Transform& t, const Site& key) {
  const std::optional<Site> again = found_again(k, t, key);
  if (!again) throw TransformError(fmt::format("the site '{}' is not in this kernel", key.key()));
  const Site& site = *again;
  const Node* anchor = find_node(k.body, site.node);
  if (!anchor) throw TransformError(fmt::format("the site '{}' is not in this kernel", site.key()));
  const nki::Stmt* origin = anchor->origin;
  // The same statement at the helper's other calls (and at the other copies of a host loop).
  std::vector<int> others;
  for (int id : helper_body_nodes(k)) {
    const Node* n = find_node(k.body, id);
    if (id != site.node && origin && n && n->origin == origin && n->kind == anchor->kind) others.push_back(id);
  }
  const int rank = rank_at_node(t.find(k), site);
  if (rank < 0) throw TransformError(fmt::format("the site '{}' is not in this kernel", site.key()));
  // Applied by anchor: Transform::apply prefers the node id, and a statement holds several sites
  // of one move with the same parameters (each multiply of `nl.multiply(nl.multiply(a, b), c)`).
  auto by_anchor = [](Site s) {
    s.node = -1;
    return s;
  };
  t.apply(k, by_anchor(site));
  for (int id : others) {
    const std::vector<Site> found = t.find(k);
    const Site* match = nullptr;
    for (const auto& s : found)
      if (s.node == id && rank_at_node(found, s) == rank && s.params == site.params &&
          anchor_operation(s.anchor) == anchor_operation(site.anchor))
        match = &s;
    if (!match)
      throw TransformError(fmt::format("{}: the move is not legal at every call of the helper (line {})", site.key(),
                                       origin ? origin->span.line : 0));
    t.apply(k, by_anchor(*match));
  }
}

}  // namespace loopnest
