// Loop interchange on the form: the two loops of a perfect nest swap places, which changes which
// operand stays resident across the inner loop and the order of the DMAs. Legal for two affine
// loops (their iterations are independent; accumulations only change order) whose bounds do not
// depend on each other, unless both loops carry one tile (a name rebound in every iteration).
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

// The only loop in `n`'s body besides end-of-loop markers and Python bindings before it (which
// move into the inner loop), or null.
Node* sole_inner_loop(Node& n) {
  Node* inner = nullptr;
  for (auto& b : n.body) {
    if (b.kind == NodeKind::Meta && b.meta == MetaKind::Docstring) continue;
    if (!inner && b.kind == NodeKind::Meta && (b.meta == MetaKind::Binding || b.meta == MetaKind::View)) continue;
    if (b.kind != NodeKind::Loop || inner) return nullptr;
    inner = &b;
  }
  return inner;
}

// The source of a loop's `for ...:` line, "" when it spans lines or has no source.
std::string header_text(const Kernel& k, const Node& n) {
  if (!n.origin || n.origin->span.line != n.origin->span.end_line) return "";
  std::string line = k.module->file->line_text(n.origin->span.line);
  size_t start = line.find_first_not_of(' ');
  return start == std::string::npos ? "" : line.substr(start);
}

bool carried_by_both(const Kernel& k, int outer, int inner) {
  std::set<int> a = carried_tensors(k, outer), b = carried_tensors(k, inner);
  return std::any_of(a.begin(), a.end(), [&](int t) { return b.count(t) > 0; });
}

class Interchange : public Transform {
 public:
  std::string name() const override { return "interchange_loops"; }
  std::string description() const override {
    return "swap the two loops of a perfect nest (which operand stays resident across the inner loop, the order of "
           "the DMAs)";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> outers = open_loop_ids(k);
    for (int id : outers) {
      Node* outer = find_node(k, id);
      Node* inner = outer ? sole_inner_loop(*outer) : nullptr;
      if (!inner || inner->frozen) continue;
      const Loop &lo = k.loops.at(outer->loop), &li = k.loops.at(inner->loop);
      if (lo.kind != LoopKind::Affine || li.kind != LoopKind::Affine) continue;
      if (li.start.uses(lo.id) || li.stop.uses(lo.id)) continue;
      // A tile both loops carry (written where neither variable moves it, read before the write: a
      // name rebound each iteration, lift_carry.cpp): the swap reorders its updates.
      if (carried_by_both(k, lo.id, li.id)) continue;
      Analysis an(k);
      const OpRef* anchor = first_op_in(an, inner->loop);
      if (!anchor) continue;
      Site s = make_site(k, an, *anchor, fmt::format("interchange `for {}` and `for {}`", lo.var, li.var));
      s.node = outer->id;
      s.line = outer->origin ? static_cast<int>(outer->origin->span.line) : 0;
      int inner_id = inner->id;
      if (sink(s, [&k, id, inner_id] {
            Node* o = find_node(k, id);
            Node* i = find_node(k, inner_id);
            int was_inner = i->loop;
            // Bindings of the outer variable before the inner loop move into it.
            std::vector<Node> moved;
            for (auto it = o->body.begin(); it != o->body.end();) {
              if (it->kind == NodeKind::Meta && (it->meta == MetaKind::Binding || it->meta == MetaKind::View)) {
                moved.push_back(std::move(*it));
                it = o->body.erase(it);
              } else {
                ++it;
              }
            }
            i = find_node(k, inner_id);
            i->body.insert(i->body.begin(), std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()));
            std::swap(o->loop, i->loop);
            // Each header keeps the author's spelling of its loop (`cols // block`).
            std::string oh = header_text(k, *o), ih = header_text(k, *i);
            o->patch = ih, i->patch = oh;
            o->dirty = true;
            i->dirty = true;
            // Tiles of the innermost body are now per iteration of the other loop.
            for (auto& t : k.tensors)
              if (t.scope_loop == was_inner) t.scope_loop = i->loop;
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_interchange() { return std::make_unique<Interchange>(); }

}  // namespace loopnest
