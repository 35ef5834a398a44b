#include "loopnest/commute.h"

namespace loopnest {

namespace {

struct Touches {
  std::vector<const Access*> reads, writes;
};

// The accesses a node (with its subtree) makes; declarations write nothing.
Touches touched(const Node& n) {
  Touches t;
  auto one = [&](const Node& x) {
    for (const auto& op : x.ops) {
      for (const Access* a : reads(op)) t.reads.push_back(a);
      for (const Access* a : writes(op)) t.writes.push_back(a);
    }
    if (x.view) t.reads.push_back(&*x.view);
  };
  one(n);
  for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { one(x); });
  for_each_node(n.orelse, [&](const Node& x, const std::vector<int>&) { one(x); });
  return t;
}

}  // namespace

bool depend(const Kernel& k, const Node& x, const Node& y, int ignore) {
  return depend(k, x, y, ignore >= 0 ? std::set<int>{ignore} : std::set<int>{});
}

bool depend(const Kernel& k, const Node& x, const Node& y, const std::set<int>& ignore) {
  Touches a = touched(x), b = touched(y);
  Ranges ranges = k.ranges();
  auto clash = [&](const std::vector<const Access*>& w, const std::vector<const Access*>& other) {
    for (const Access* p : w)
      for (const Access* q : other)
        if (!ignore.count(storage_of(k, p->tensor)) && may_overlap_across(k, *p, *q, ranges)) return true;
    return false;
  };
  return clash(a.writes, b.reads) || clash(a.writes, b.writes) || clash(b.writes, a.reads);
}

bool commute(const Kernel& k, const Node& x, const Node& y) {
  for (const Node* n : {&x, &y})
    if (n->frozen || n->kind == NodeKind::Inline ||
        (n->kind == NodeKind::Meta && n->meta != MetaKind::Docstring && n->meta != MetaKind::Binding))
      return false;
  return !depend(k, x, y);
}

}  // namespace loopnest
