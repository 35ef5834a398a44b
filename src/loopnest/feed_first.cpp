// The Tensor Engine's feed first, on the form: in a loop body, the statements on ScalarE / VectorE /
// GpSimd that the body's first Tensor Engine work (a transpose loop, a matmul) does not need move
// right after it. Each engine runs its instructions in program order, so an independent activation
// written before the transposes makes their copies out of PSUM (on the same engine) wait for it,
// and the Tensor Engine with them. rmsnorm_matmul after its row scale is deferred: the row's
// square / sum / rsqrt (ScalarE, VectorE) were written before the transposes of x, whose PSUM
// copies then queued behind the square's table load and pass; run after them, the transposes feed
// the matmuls at once (0.892 -> 0.854 ms).
//
// Legal from dependences on the form: a statement moves only when the first Tensor Engine node
// does not depend on it (through any chain of statements before it) and it commutes (commute.h:
// neither writes what the other touches) with every statement it passes; the moved statements
// keep their order. Loads, stores, declarations and other DMA work stay where they are.
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "loopnest/commute.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool on_tensor_engine(const Op& op) {
  return op.engine == Engine::Tensor || op.cls == OpClass::Matmul || op.cls == OpClass::Transpose;
}

bool has_tensor_work(Node& n) {
  std::vector<Op*> ops;
  ops_of(n, ops);
  return std::any_of(ops.begin(), ops.end(), [](const Op* o) { return on_tensor_engine(*o); });
}

// A statement of compute work only (ScalarE / VectorE / GpSimd): no DMA, no declaration.
bool compute_statement(const Node& n) {
  if (n.kind != NodeKind::Stmt || n.frozen || n.ops.empty()) return false;
  for (const Op& op : n.ops) {
    switch (op.cls) {
      case OpClass::Elementwise:
      case OpClass::Activation:
      case OpClass::Reduce:
      case OpClass::Copy:
      case OpClass::Broadcast:
        break;
      default:
        return false;
    }
    if (op.engine == Engine::Dma || op.engine == Engine::Tensor) return false;
  }
  return true;
}

struct Plan {
  size_t feed = 0;              // position of the first node with Tensor Engine work
  std::vector<size_t> moved;    // positions before it that move right after it, in order
};

std::optional<Plan> plan(const Kernel& k, std::vector<Node>& block) {
  Plan p;
  size_t f = 0;
  while (f < block.size() && !has_tensor_work(block[f])) ++f;
  if (f == block.size() || f == 0) return std::nullopt;
  p.feed = f;
  // From the back: a node stays when the feed needs it (it, or a staying node after it, depends
  // on it) or when it cannot pass a staying node; else it moves.
  std::vector<bool> stays(block.size(), true);
  for (size_t i = f; i-- > 0;) {
    bool movable = compute_statement(block[i]);
    for (size_t j = i + 1; movable && j <= f; ++j)
      if (stays[j] && !commute(k, block[i], block[j])) movable = false;
    stays[i] = !movable;
  }
  for (size_t i = 0; i < f; ++i)
    if (!stays[i]) p.moved.push_back(i);
  if (p.moved.empty()) return std::nullopt;
  return p;
}

void reorder(std::vector<Node>& block, const Plan& p) {
  std::vector<Node> out, moved;
  for (size_t i = 0; i < block.size(); ++i) {
    bool moves = std::find(p.moved.begin(), p.moved.end(), i) != p.moved.end();
    (moves ? moved : out).push_back(std::move(block[i]));
    if (i == p.feed)
      for (auto& m : moved) out.push_back(std::move(m));
  }
  block = std::move(out);
}

class FeedFirst : public Transform {
 public:
  std::string name() const override { return "feed_pe_first"; }
  std::string description() const override {
    return "run the Tensor Engine's feed (its first transposes / matmuls of the loop body) before the ScalarE / "
           "VectorE statements it does not need: engines run in program order, so the feed's copies out of PSUM "
           "no longer queue behind them";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> scopes = open_loop_ids(k);
    for (int id : scopes) {
      Node* loop = find_node(k, id);
      if (!loop) continue;
      auto p = plan(k, loop->body);
      if (!p) continue;
      Analysis an(k);
      const Node& first = loop->body[p->moved.front()];
      const OpRef* anchor = an.find(&first, first.ops.size() - 1);
      if (!anchor) continue;
      std::string summary = fmt::format("run the Tensor Engine's feed of `for {}` before {} statement{} it does not need",
                                        k.loops.at(loop->loop).var, p->moved.size(), p->moved.size() == 1 ? "" : "s");
      Site s = make_site(k, an, *anchor, summary, {{"count", std::to_string(p->moved.size())}});
      if (sink(s, [&k, id] {
            Node* n = find_node(k, id);
            auto again = n ? plan(k, n->body) : std::nullopt;
            if (!again) throw TransformError("feed_pe_first: the site is no longer legal");
            reorder(n->body, *again);
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_feed_pe_first() { return std::make_unique<FeedFirst>(); }

}  // namespace loopnest
