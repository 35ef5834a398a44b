#include "loopnest/commute.h"

#include "loopnest/transform.h"

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

// A view (`y = ys[mt % 2]`, `ps = tps[kq % 2]`: a name for a region, as the newer API's lists of
// buffers are picked) copies no data: Python binds a reference, and every access through it is
// written out in the form as the region itself. Swapping it with another node changes only which
// names each sees: the other node must not mention the name the view binds, nor bind a name the
// view's text reads (`r0 = mt * P` before `xv = x[r0:r0 + P]`). Its region counts as read
// (depend), so it never passes a write of the tensor it names either.
bool view_swaps(const Kernel& k, const Node& view, const Node& other) {
  for (const std::string& name : view.binds)
    if (mentions(k, other, name)) return false;
  std::vector<std::string> bound = other.kind == NodeKind::Meta ? other.binds : std::vector<std::string>{};
  if (other.kind == NodeKind::Loop) bound.push_back(k.loops.at(other.loop).var);
  for (const std::string& name : bound)
    if (mentions(k, view, name)) return false;
  return true;
}

// Whether a write of `writes` may touch an element an access of `other` touches (tensors whose
// storage `ignore` holds aside).
bool overlap(const Kernel& k, const Ranges& ranges, const std::vector<const Access*>& writes,
             const std::vector<const Access*>& other, const std::set<int>& ignore) {
  for (const Access* p : writes)
    for (const Access* q : other)
      if (!ignore.count(storage_of(k, p->tensor)) && may_overlap_across(k, *p, *q, ranges)) return true;
  return false;
}

}  // namespace

bool depend(const Kernel& k, const Node& x, const Node& y, int ignore) {
  return depend(k, x, y, ignore >= 0 ? std::set<int>{ignore} : std::set<int>{});
}

bool depend(const Kernel& k, const Node& x, const Node& y, const std::set<int>& ignore) {
  Touches a = touched(x), b = touched(y);
  Ranges ranges = k.ranges();
  return overlap(k, ranges, a.writes, b.reads, ignore) || overlap(k, ranges, a.writes, b.writes, ignore) ||
         overlap(k, ranges, b.writes, a.reads, ignore);
}

bool flows(const Kernel& k, const Node& from, const Node& to) {
  return overlap(k, k.ranges(), touched(from).writes, touched(to).reads, {});
}

bool commute(const Kernel& k, const Node& x, const Node& y) {
  auto is_view = [](const Node& n) { return n.kind == NodeKind::Meta && n.meta == MetaKind::View && n.view; };
  for (const Node* n : {&x, &y})
    if (n->frozen || n->kind == NodeKind::Inline ||
        (n->kind == NodeKind::Meta && n->meta != MetaKind::Docstring && n->meta != MetaKind::Binding && !is_view(*n)))
      return false;
  if (is_view(x) && !view_swaps(k, x, y)) return false;
  if (is_view(y) && !view_swaps(k, y, x)) return false;
  return !depend(k, x, y);
}

}  // namespace loopnest
