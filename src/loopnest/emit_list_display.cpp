// A list of tiles made in one statement and printed from the form (lift_assign.cpp names its items
// `blocks[0]`, `blocks[1]`, ...): `blocks = list(map(lambda c: nl.load(...), range(4)))` with its
// lambdas opened, a helper's `ins = [nl.load(s[...]) for s in srcs]` over a host list opened into
// the kernel (an element-wise driver taking its math as a callable, `y = fn(*ins)`). Each item
// printed alone reads `blocks[0] = nl.load(...)`, an item of a list the printed kernel never binds
// (it does not lift back: probe p19); printed together they are the list display that binds it,
// `blocks = [nl.load(...), nl.load(...), ...]`, which lifts to the same items.
#include <regex>

#include "loopnest/emitter.h"

namespace loopnest::detail {

namespace {

struct ListItem {
  std::string list;
  size_t index = 0;
  std::string element;
};

}  // namespace

// The list display printing nodes[j], nodes[j+1], ... when they make the items 0, 1, ... of one
// list, all of its items, each printed from the form (`force`: the nodes of a changed Inline node,
// whose text cannot be copied); the number of nodes it printed, 0 when it does not apply.
size_t Emitter::list_display(const std::vector<Node>& nodes, size_t j, int depth, bool force, std::string& out) {
  static const std::regex item_text(R"(^([A-Za-z_][A-Za-z_0-9]*)\[([0-9]+)\] = (.+)$)");
  auto item_of = [&](const Node& n) -> std::optional<ListItem> {
    if (n.kind != NodeKind::Stmt || n.ops.empty() || !n.patch.empty() || !(force || n.dirty || !n.origin)) return std::nullopt;
    if (n.ops.back().result < 0) return std::nullopt;
    for (const auto& op : n.ops)
      if (indirect_dma(op)) return std::nullopt;
    auto scope = renames_.empty() ? std::map<std::string, std::string>{} : renames_.back();
    for (const auto& [from, to] : n.renames) scope[from] = to;
    renames_.push_back(std::move(scope));
    std::string text;
    try {
      text = statement(n);
    } catch (const EmitError&) {
      renames_.pop_back();
      return std::nullopt;
    }
    renames_.pop_back();
    std::smatch m;
    if (!std::regex_match(text, m, item_text)) return std::nullopt;
    return ListItem{m[1], std::stoul(m[2]), m[3]};
  };
  std::string list;
  std::vector<std::string> items;
  for (size_t i = j; i < nodes.size(); ++i) {
    auto item = item_of(nodes[i]);
    if (!item || (i > j && item->list != list) || item->index != items.size()) break;
    list = item->list;
    items.push_back(item->element);
  }
  if (items.empty()) return 0;
  // (A run of items short of the whole list, its other items made elsewhere, prints a list the
  // kernel's later `L[n]` does not find: the printed kernel then lifts to another form, and the
  // check of every printed move (emit_checked.cpp) refuses it.)
  if (force && j + items.size() != nodes.size()) return 0;
  if (!force) leading(nodes[j], depth, out);  // (a changed Inline node printed its own)
  std::string text = indent(depth) + list + " = [";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  out += text + "]\n";
  return items.size();
}

}  // namespace loopnest::detail
