// A move applied with the kernel's helper calls and host loops opened (`helpers=open`) prints only
// what it changed: every opened call whose nodes the move left where opening put them, in order and
// unchanged, is the author's call again (its Inline node as lifted, printed as written), so the diff
// of a moved kernel shows the move and not every other helper of the kernel inlined (held-out
// author37 gqa_full: engine_assign of the scores' scale inside `compute_scores` printed all six
// helpers inlined, 100 changed lines; now the one helper it changed).
//
// Unchanged: the dump of the call's nodes (operations, accesses, engines, the tiles they name with
// their types) equal in the opened kernel and after the move, and no node given a patch or renames.
// The tiles the call's nodes make get their names as lifted back (opening renamed clashes and named
// the parts of a split statement). The caller keeps the result only where it prints back and lifts
// to the same form (emit_checked), which also holds the call's text to what its nodes compute.
#include "loopnest/opened_calls.h"

#include <set>

#include "loopnest/dump.h"
#include "loopnest/node_lookup.h"

namespace loopnest {

namespace {

// The block holding nodes with ids `ids` one after another, and where they start.
std::vector<Node>* find_run(std::vector<Node>& block, const std::vector<int>& ids, size_t& at) {
  for (size_t i = 0; i + ids.size() <= block.size(); ++i) {
    bool match = true;
    for (size_t j = 0; j < ids.size() && match; ++j) match = block[i + j].id == ids[j];
    if (match) {
      at = i;
      return &block;
    }
  }
  for (auto& n : block) {
    if (auto* b = find_run(n.body, ids, at)) return b;
    if (auto* b = find_run(n.orelse, ids, at)) return b;
  }
  return nullptr;
}

bool same_text_state(const Node& a, const Node& b) {
  if (a.patch != b.patch || a.renames != b.renames || a.body.size() != b.body.size() || a.orelse.size() != b.orelse.size())
    return false;
  for (size_t i = 0; i < a.body.size(); ++i)
    if (!same_text_state(a.body[i], b.body[i])) return false;
  for (size_t i = 0; i < a.orelse.size(); ++i)
    if (!same_text_state(a.orelse[i], b.orelse[i])) return false;
  return true;
}

// The nodes' dump in the kernel `k` (its tensors' names and types, its loops).
std::string nodes_text(const Kernel& k, const std::vector<Node>& nodes) {
  Kernel one = k;
  one.body = nodes;
  one.grid.clear();
  return dump(one);
}

void made_tiles(const std::vector<Node>& nodes, std::set<int>& out) {
  for_each_node(nodes, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (op.result >= 0) out.insert(op.result);
      if (op.dst && (op.cls == OpClass::Alloc || op.cls == OpClass::Memset)) out.insert(op.dst->tensor);
    }
  });
}

}  // namespace

int reclose_unchanged_calls(Kernel& k, const Kernel& before, const Kernel& opened, const std::vector<OpenedCall>& calls) {
  int closed = 0;
  for (const auto& c : calls) {
    if (c.ids.empty()) continue;
    size_t at = 0;
    std::vector<Node>* block = find_run(k.body, c.ids, at);
    if (!block) continue;
    std::vector<Node> now(block->begin() + static_cast<long>(at), block->begin() + static_cast<long>(at + c.ids.size()));
    std::vector<Node> was;
    for (int id : c.ids) {
      const Node* n = find_node(opened.body, id);
      if (!n) break;
      was.push_back(*n);
    }
    if (was.size() != now.size()) continue;
    bool same = true;
    for (size_t i = 0; i < now.size() && same; ++i) same = same_text_state(now[i], was[i]);
    if (!same || nodes_text(k, now) != nodes_text(opened, was)) continue;
    std::set<int> made;
    made_tiles(now, made);
    for (int t : made)
      if (t >= 0 && static_cast<size_t>(t) < before.tensors.size()) k.tensors[static_cast<size_t>(t)].name = before.tensor(t).name;
    block->erase(block->begin() + static_cast<long>(at), block->begin() + static_cast<long>(at + c.ids.size()));
    block->insert(block->begin() + static_cast<long>(at), c.call);
    ++closed;
  }
  return closed;
}

}  // namespace loopnest
