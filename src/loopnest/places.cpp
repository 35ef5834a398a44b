#include "loopnest/places.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/core.h>

#include "loopnest/dump.h"

namespace loopnest {

namespace {

// A name without its trailing copy indices (`probs_n_0` -> `probs_n`, `x_1_0` -> `x`): jam_rows
// names a row's copy `name_j`, a second jam `name_j_i`, and a move renaming a clashing tile
// `name_2`.
std::string stem(const std::string& name) {
  std::string s = name;
  for (;;) {
    size_t us = s.rfind('_');
    if (us == std::string::npos || us == 0 || us + 1 == s.size()) return s;
    bool digits = true;
    for (size_t i = us + 1; i < s.size(); ++i) digits = digits && s[i] >= '0' && s[i] <= '9';
    if (!digits) return s;
    s.resize(us);
  }
}

// Compares a node of the kernel with another, the second's loops and tiles mapped to the first's
// as the comparison meets them (one to one).
class CopyMatch {
 public:
  explicit CopyMatch(const Kernel& k) : k_(k) {}

  // The loop `lb` around (or in) the second node runs over the range of `la` around the first.
  bool loop(int la, int lb) {
    if (la == lb) return !loops_.count(lb);
    if (auto it = loops_.find(lb); it != loops_.end()) return it->second == la;
    const Loop &x = k_.loops.at(la), &y = k_.loops.at(lb);
    if (x.kind != y.kind || x.step != y.step || x.host_items != y.host_items || x.ordered != y.ordered) return false;
    if (!same(x.start, y.start) || !same(x.stop, y.stop)) return false;
    loops_[lb] = la;
    return true;
  }

  bool nodes(const std::vector<Node>& a, const std::vector<Node>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!node(a[i], b[i])) return false;
    return true;
  }

  bool node(const Node& a, const Node& b) {
    if (a.kind != b.kind || a.frozen != b.frozen || a.meta != b.meta || a.helper != b.helper) return false;
    if (a.ops.size() != b.ops.size() || a.view.has_value() != b.view.has_value()) return false;
    if (a.view && !access(*a.view, *b.view)) return false;
    for (size_t i = 0; i < a.ops.size(); ++i)
      if (!op(a.ops[i], b.ops[i])) return false;
    if (a.kind == NodeKind::Loop && !loop(a.loop, b.loop)) return false;
    if (a.kind == NodeKind::If && (a.cond != b.cond || !offset(a.cond_l, b.cond_l) || !offset(a.cond_r, b.cond_r)))
      return false;
    // A binding or view names the copy's own value: its names correspond as the tiles' do.
    if (a.binds.size() != b.binds.size()) return false;
    for (size_t i = 0; i < a.binds.size(); ++i)
      if (stem(a.binds[i]) != stem(b.binds[i])) return false;
    return nodes(a.body, b.body) && nodes(a.orelse, b.orelse);
  }

 private:
  IExpr in_first(IExpr e) const {
    for (const auto& [lb, la] : loops_) e = e.substitute(lb, IExpr::var(la));
    return e;
  }
  bool same(const IExpr& a, const IExpr& b) const { return a == in_first(b); }
  // Equal, or both moving with the loops and equal up to a constant: the copies' rows (`2*b` and
  // `2*b + 1`). Two constants that differ are two places of the author's (a buffer's slots 0 and 1),
  // not the rows of a loop, except in the kernel's HBM tensors (`any_constant`): a loop of F rows
  // jammed by F reads rows 0 and 1 of its input, each into its own tile.
  bool offset(const IExpr& a, const IExpr& b, bool any_constant = false) const {
    IExpr c = in_first(b);
    return a == c || ((any_constant || (!a.is_constant() && !c.is_constant())) && (a - c).is_constant());
  }

  bool tensor(int a, int b) {
    if (a < 0 || b < 0) return a == b;
    if (auto it = tensors_.find(a); it != tensors_.end()) return it->second == b;
    if (a != b && taken_.count(b)) return false;
    if (a != b) {
      const Tensor &x = k_.tensor(a), &y = k_.tensor(b);
      // Only on-chip tiles are the copies' own: every copy reads and writes the same HBM tensors.
      if (!x.on_chip() || x.memory != y.memory || x.role != y.role || x.dtype != y.dtype ||
          x.partition_dim != y.partition_dim || x.shape.size() != y.shape.size() || x.host_list != y.host_list ||
          x.list_levels() != y.list_levels())
        return false;
      if (stem(x.name) != stem(y.name) || stem(x.list_name) != stem(y.list_name)) return false;
      for (size_t i = 0; i < x.shape.size(); ++i)
        if (!same(x.shape[i], y.shape[i])) return false;
      tensors_[a] = b;
      taken_.insert(b);
      if (x.base >= 0 || y.base >= 0) return tensor(x.base, y.base);
      return true;
    }
    tensors_[a] = b;
    taken_.insert(b);
    return true;
  }

  bool access(const Access& a, const Access& b) {
    if (!tensor(a.tensor, b.tensor) || a.rank != b.rank || a.dims.size() != b.dims.size()) return false;
    const bool hbm = !k_.tensor(a.tensor).on_chip();
    for (size_t i = 0; i < a.dims.size(); ++i) {
      const DimIndex &x = a.dims[i], &y = b.dims[i];
      if (!offset(x.start, y.start, hbm) || x.terms.size() != y.terms.size()) return false;
      for (size_t j = 0; j < x.terms.size(); ++j) {
        const AxisTerm &s = x.terms[j], &t = y.terms[j];
        if (s.axis != t.axis || s.stride != t.stride || s.div != t.div || s.mod != t.mod || !same(s.size, t.size))
          return false;
      }
    }
    return true;
  }

  bool operand(const Operand& a, const Operand& b) {
    if (a.kind != b.kind || a.number_when.has_value() != b.number_when.has_value()) return false;
    if (a.number_when && !same(*a.number_when, *b.number_when)) return false;
    switch (a.kind) {
      case Operand::Kind::Tile:
        return access(a.access, b.access);
      case Operand::Kind::Number:
        return a.number == b.number && a.integer == b.integer && a.number_type == b.number_type;
      case Operand::Kind::Symbol:
        return a.symbol == b.symbol;
      case Operand::Kind::Shape:
        if (a.shape.size() != b.shape.size()) return false;
        for (size_t i = 0; i < a.shape.size(); ++i)
          if (!same(a.shape[i], b.shape[i])) return false;
        return true;
      case Operand::Kind::Index:
        return offset(a.index, b.index);
      case Operand::Kind::Grid:
        if (a.grid_rank != b.grid_rank || !offset(a.grid.start, b.grid.start) ||
            a.grid.terms.size() != b.grid.terms.size())
          return false;
        for (size_t j = 0; j < a.grid.terms.size(); ++j)
          if (a.grid.terms[j].axis != b.grid.terms[j].axis || a.grid.terms[j].stride != b.grid.terms[j].stride ||
              !same(a.grid.terms[j].size, b.grid.terms[j].size))
            return false;
        return true;
      case Operand::Kind::Other:
        return a.text == b.text;
      case Operand::Kind::None:
        return true;
    }
    return false;
  }

  bool op(const Op& a, const Op& b) {
    if (a.api != b.api || a.cls != b.cls || a.engine != b.engine || a.engine_explicit != b.engine_explicit ||
        a.accumulate != b.accumulate || a.has_mask != b.has_mask || a.dtype != b.dtype || a.dst_first != b.dst_first ||
        a.dst.has_value() != b.dst.has_value() || a.args.size() != b.args.size() || a.mask.size() != b.mask.size())
      return false;
    if (a.dst && !access(*a.dst, *b.dst)) return false;
    if (!tensor(a.result, b.result)) return false;
    for (size_t i = 0; i < a.args.size(); ++i)
      if (a.args[i].name != b.args[i].name || a.args[i].output != b.args[i].output ||
          !operand(a.args[i].value, b.args[i].value))
        return false;
    for (size_t i = 0; i < a.mask.size(); ++i)
      if (a.mask[i].cmp != b.mask[i].cmp || a.mask[i].axes != b.mask[i].axes || !offset(a.mask[i].expr, b.mask[i].expr))
        return false;
    return true;
  }

  const Kernel& k_;
  std::map<int, int> loops_;    // the second's loop -> the first's
  std::map<int, int> tensors_;  // the first's tensor -> the second's
  std::set<int> taken_;         // the second's tensors mapped
};

struct Found {
  const Node* node = nullptr;
  std::vector<int> loops;  // enclosing loop ids, outermost first
};

std::map<int, Found> nodes_by_id(const Kernel& k) {
  std::map<int, Found> out;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& loops) { out[n.id] = Found{&n, loops}; });
  return out;
}

// Copies lie in one loop's body (the rows jam_rows runs together): in the same block, or in nests
// that are themselves copies, side by side (the rows' nested loops copied whole, overlap=engines).
bool copies(const Kernel& k, const std::map<int, Found>& by_id, int a, int b) {
  auto x = by_id.find(a), y = by_id.find(b);
  if (a == b || x == by_id.end() || y == by_id.end()) return false;
  const auto &la = x->second.loops, &lb = y->second.loops;
  if (la.size() != lb.size() || la.empty() || la.front() != lb.front()) return false;
  CopyMatch m(k);
  size_t d = 0;
  while (d < la.size() && la[d] == lb[d]) ++d;
  if (d < la.size()) {
    const Node *na = loop_node(k, la[d]), *nb = loop_node(k, lb[d]);
    if (!na || !nb || !m.node(*na, *nb)) return false;
    for (; d < la.size(); ++d)
      if (!m.loop(la[d], lb[d])) return false;
  }
  return m.node(*x->second.node, *y->second.node);
}

// The anchor without its ordinal: the nest's trips and the op's kind (`8x32/act(exp)`).
std::string anchor_kind(const std::string& anchor) { return anchor.substr(0, anchor.rfind('#')); }

// Groups of two or more of `sites` (indices, in order) that are one move at copies of one statement.
std::vector<std::vector<size_t>> copy_groups(const Kernel& k, const std::vector<Site>& sites) {
  std::vector<std::vector<size_t>> groups;
  std::map<int, Found> by_id;
  for (size_t i = 0; i < sites.size(); ++i) {
    const Site& s = sites[i];
    if (s.params.count("places") || s.node < 0) continue;
    bool placed = false;
    for (auto& g : groups) {
      const Site& lead = sites[g.front()];
      if (lead.params != s.params || anchor_kind(lead.anchor) != anchor_kind(s.anchor)) continue;
      if (by_id.empty()) by_id = nodes_by_id(k);
      if (!copies(k, by_id, lead.node, s.node)) continue;
      g.push_back(i);
      placed = true;
      break;
    }
    if (!placed) groups.push_back({i});
  }
  std::erase_if(groups, [](const auto& g) { return g.size() < 2; });
  return groups;
}

void apply_group(Kernel& k, const Transform& t, const std::vector<Site>& sites, const std::vector<size_t>& group) {
  // Each application changes the kernel: the next site is found again by its node (apply prefers
  // it, and the other copies' nodes stay), its legality decided on the kernel as it is now.
  for (size_t i : group) t.apply(k, sites[i]);
}

}  // namespace

bool copies_of_one_statement(const Kernel& k, int a, int b) { return copies(k, nodes_by_id(k), a, b); }

void gather_places(const Kernel& k, const Transform& t, std::vector<Site>& sites) {
  auto groups = copy_groups(k, sites);
  if (groups.empty()) return;
  std::set<size_t> gone, grouped;
  for (const auto& g : groups) grouped.insert(g.begin(), g.end());
  // The results of the move's other sites, asked for when a group's is known: a move that offers a
  // site of its own at every copy (coalesce_stores' `stores=S`) needs no second one.
  std::optional<std::set<std::string>> others;
  auto offered = [&](const std::string& result) {
    if (!others) {
      others.emplace();
      for (size_t i = 0; i < sites.size(); ++i) {
        if (grouped.count(i)) continue;
        Kernel after = k;
        try {
          t.apply(after, sites[i]);
          others->insert(dump(after));
        } catch (const TransformError&) {
        }
      }
    }
    return others->count(result) > 0;
  };
  std::map<size_t, Site> bundled;  // at its first site's place
  for (const auto& g : groups) {
    Kernel trial = k;
    try {
      apply_group(trial, t, sites, g);
    } catch (const TransformError&) {
      continue;  // a copy stops being a site once another is rewritten: offered one by one
    }
    if (offered(dump(trial))) continue;
    Site s = sites[g.front()];
    s.params["places"] = std::to_string(g.size());
    s.summary += fmt::format(" (at {} places)", g.size());
    bundled[g.front()] = std::move(s);
    // The other copies' own sites are the first's by symmetry: each would cost a plan's slot. A
    // move between engines keeps the first's (one copy moved, k98-style gqa_full jammed by two
    // heads: one scaling to ScalarE 10.11 -> 9.66 ms, both 10.25 ms).
    gone.insert(g.begin() + (t.balances_engines() ? 1 : 0), g.end());
  }
  std::vector<Site> out;
  for (size_t i = 0; i < sites.size(); ++i) {
    if (!gone.count(i)) out.push_back(std::move(sites[i]));
    if (auto b = bundled.find(i); b != bundled.end()) out.push_back(std::move(b->second));
  }
  sites = std::move(out);
}

bool apply_at_places(Kernel& k, const Transform& t, const Site& site) {
  auto places = site.params.find("places");
  if (places == site.params.end()) return false;
  auto params = site.params;
  params.erase("places");
  const std::vector<Site> sites = t.find(k);
  const auto groups = copy_groups(k, sites);
  // The node when the site comes from this lift, else its anchor (a lift of the printed text).
  for (bool by_node : {true, false})
    for (const auto& g : groups) {
      const Site& lead = sites[g.front()];
      if (lead.params != params || std::to_string(g.size()) != places->second) continue;
      if (by_node ? lead.node != site.node : lead.anchor != site.anchor) continue;
      apply_group(k, t, sites, g);
      return true;
    }
  return false;
}

}  // namespace loopnest
