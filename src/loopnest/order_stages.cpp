// A stage right after its producer, on the form: in a block (a loop body or the kernel's top
// level), a loop nest that reads what an earlier sibling nest writes, written after other nests
// it does not depend on, moves up to run right after that producer. A jam or an unroll leaves the
// rows' stages grouped by stage (`T0 T1 M0 M1`: both rows' transposes, then both rows' matmuls);
// each engine runs its instructions in program order, so M0 waits on the Tensor Engine behind T1,
// whose PSUM tiles wait for copies of T0's that no matmul has consumed yet, and the scheduler's
// window of 32 instructions never reaches M0 past T1's. Written `T0 M0 T1 M1` the rows' stages
// alternate on the engine they share (held-out gqa_full, query tiles jammed by 2 after its P @ V
// transposes were split off: 9.030 -> 8.183 ms).
//
// Legal from dependences on the form: the moved nest commutes (commute.h: no flow, anti or output
// dependence through any SBUF / PSUM tile or HBM tensor) with every nest it passes, and passes no
// declaration of a tile it touches; it stops right after the nest it depends on, which must be a
// nest it reads from (its producer). Where it pays, not legality: the moved nest, its producer and a
// nest it passes run on one engine (the moved nest waited in that engine's queue); it passes only
// other rows' stages up to the producer's (no nest reading the producer or a nest before it on an
// engine they share: swapping two consumers gains nothing), nests and declarations only (a
// statement between is a stage of its own).
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/commute.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// The compute engines a node's operations run on (the Tensor Engine for every matmul and
// transpose); DMA and undecided engines count for none.
std::set<Engine> engines_of(const Node& n) {
  std::set<Engine> out;
  auto one = [&](const Node& x) {
    for (const Op& op : x.ops) {
      if (op.cls == OpClass::Matmul || op.cls == OpClass::Transpose) out.insert(Engine::Tensor);
      else if (op.engine != Engine::None && op.engine != Engine::Dma) out.insert(op.engine);
    }
  };
  one(n);
  for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { one(x); });
  return out;
}

// The tensors (their storage) a node and its subtree touch.
std::set<int> tensors_of(const Kernel& k, const Node& n) {
  std::set<int> out;
  auto one = [&](const Node& x) {
    for (const Op& op : x.ops) {
      for (const Access* a : reads(op)) out.insert(storage_of(k, a->tensor));
      for (const Access* a : writes(op)) out.insert(storage_of(k, a->tensor));
      if (op.result >= 0) out.insert(storage_of(k, op.result));
    }
    if (x.view) out.insert(storage_of(k, x.view->tensor));
  };
  one(n);
  for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { one(x); });
  return out;
}

bool stage(const Node& n) { return n.kind == NodeKind::Loop && !n.frozen; }

// A statement of declarations only (`pT_1 = nl.ndarray(...)`): it writes nothing a nest reads.
bool declaration_statement(const Node& n) {
  return n.kind == NodeKind::Stmt && !n.frozen && !n.ops.empty() &&
         std::all_of(n.ops.begin(), n.ops.end(), [](const Op& op) { return is_declaration(op); });
}

// Whether the nest at `at` reads what a nest of the block before position `before` writes on an
// engine both run on (a consumer stage of that nest).
bool consumes_on_its_engine(const Kernel& k, const std::vector<Node>& block, size_t at, size_t before) {
  std::set<Engine> mine = engines_of(block[at]);
  for (size_t p = 0; p < before; ++p) {
    if (!stage(block[p]) || !flows(k, block[p], block[at])) continue;
    std::set<Engine> theirs = engines_of(block[p]);
    if (std::any_of(mine.begin(), mine.end(), [&](Engine e) { return theirs.count(e) > 0; })) return true;
  }
  return false;
}

// Where the nest at `at` of `block` may go: the position right after its producer, when it passes
// at least one nest sharing an engine with both; nullopt when it stays.
std::optional<size_t> destination(const Kernel& k, const std::vector<Node>& block, size_t at) {
  const Node& x = block[at];
  if (!stage(x)) return std::nullopt;
  std::set<int> touched = tensors_of(k, x);
  size_t j = at;
  bool passes_nest = false;
  while (j-- > 0) {
    const Node& c = block[j];
    if (declaration_statement(c)) {
      std::set<int> declared = tensors_of(k, c);
      if (std::any_of(declared.begin(), declared.end(), [&](int t) { return touched.count(t) > 0; })) return std::nullopt;
      continue;
    }
    if (!stage(c)) return std::nullopt;  // a statement between is a stage of its own: the nest stays after it
    if (!commute(k, c, x)) break;
    passes_nest = true;
  }
  if (j == static_cast<size_t>(-1) || !passes_nest) return std::nullopt;
  const Node& producer = block[j];
  if (!flows(k, producer, x)) return std::nullopt;  // an anti or output dependence: not its producer
  // Only other rows' stages up to the producer's are passed, never a consumer of the producer or of
  // a nest before it on an engine they share (row 0's matmuls, when row 1's would pass them after
  // row 0's could not move): that would only swap two consumers. A stage between the producer and
  // the moved nest may read a nest after the producer (stages of three: Z0 A0 Z1 A1 B0 B1, B0
  // passes Z1 and A1).
  for (size_t c = j + 1; c < at; ++c)
    if (stage(block[c]) && consumes_on_its_engine(k, block, c, j + 1)) return std::nullopt;
  std::set<Engine> shared;
  std::set<Engine> ex = engines_of(x), ep = engines_of(producer);
  std::set_intersection(ex.begin(), ex.end(), ep.begin(), ep.end(), std::inserter(shared, shared.end()));
  for (size_t c = j + 1; c < at; ++c) {
    if (!stage(block[c])) continue;
    std::set<Engine> ec = engines_of(block[c]);
    if (std::any_of(shared.begin(), shared.end(), [&](Engine e) { return ec.count(e) > 0; })) return j + 1;
  }
  return std::nullopt;
}

// Every nest of the block, first to last, moved right after its producer where it may go (each
// decided on the order the moves before it left); returns how many moved, and the first moved
// nest's id.
std::pair<int, int> reorder(const Kernel& k, std::vector<Node>& block) {
  std::vector<int> ids;
  for (const Node& n : block) ids.push_back(n.id);
  int moved = 0, first = -1;
  for (int id : ids) {
    auto at = std::find_if(block.begin(), block.end(), [&](const Node& n) { return n.id == id; }) - block.begin();
    auto to = destination(k, block, static_cast<size_t>(at));
    if (!to) continue;
    Node n = std::move(block[static_cast<size_t>(at)]);
    block.erase(block.begin() + at);
    block.insert(block.begin() + static_cast<std::ptrdiff_t>(*to), std::move(n));
    if (moved++ == 0) first = id;
  }
  return {moved, first};
}

std::vector<Node>* block_of(Kernel& k, int loop_node) {
  if (loop_node < 0) return &k.body;
  Node* n = find_node(k, loop_node);
  return n && n->kind == NodeKind::Loop ? &n->body : nullptr;
}

class OrderStages : public Transform {
 public:
  std::string name() const override { return "order_stages"; }
  std::string description() const override {
    return "run each loop nest right after the nest producing what it reads, ahead of other rows' nests it "
           "commutes with: engines run in program order, so a consumer written after another row's stage on "
           "the same engine waits behind it";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<int> scopes = {-1};
    for (int id : open_loop_ids(k)) scopes.push_back(id);
    for (int scope : scopes) {
      std::vector<Node>* block = block_of(k, scope);
      if (!block) continue;
      std::vector<Node> trial = *block;
      auto [moved, first] = reorder(k, trial);
      if (moved == 0) continue;
      Analysis an(k);
      Node* x = find_node(k, first);
      if (!x) continue;
      std::string where = scope < 0 ? std::string("the kernel's body") : fmt::format("`for {}`", k.loops.at(find_node(k, scope)->loop).var);
      std::string summary = fmt::format("run {} loop nest{} of {} right after the nest{} producing what {} read{}",
                                        moved, moved == 1 ? "" : "s", where, moved == 1 ? "" : "s",
                                        moved == 1 ? "it" : "they", moved == 1 ? "s" : "");
      auto s = make_loop_site(k, an, *x, summary, {{"stages", std::to_string(moved)}});
      if (!s) continue;
      if (sink(*s, [&k, scope, moved = moved] {
            std::vector<Node>* b = block_of(k, scope);
            if (!b) throw TransformError("order_stages: the block is gone");
            std::vector<Node> again = *b;
            if (reorder(k, again).first != moved) throw TransformError("order_stages: the site is no longer legal");
            *b = std::move(again);
          }))
        return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_order_stages() { return std::make_unique<OrderStages>(); }

}  // namespace loopnest
