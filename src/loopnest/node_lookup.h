// The node with a given id anywhere in a block (bodies and else branches), for the moves and the
// printers that carry node ids between a kernel and its copies.
#pragma once

#include <utility>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

inline const Node* find_node(const std::vector<Node>& block, int id) {
  for (const auto& n : block) {
    if (n.id == id) return &n;
    if (const Node* x = find_node(n.body, id)) return x;
    if (const Node* x = find_node(n.orelse, id)) return x;
  }
  return nullptr;
}

inline Node* find_node(std::vector<Node>& block, int id) {
  return const_cast<Node*>(find_node(std::as_const(block), id));
}

}  // namespace loopnest
