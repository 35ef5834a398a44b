// Names carried through an affine or sequential loop: `acc = nl.add(acc, t)`, a running max
// `m = m_new`, a scan's `carry = nl.copy(s[:, -1:])`. Python rebinds the name each iteration; the
// form has one tensor per name, so the carried tile is the buffer declared before the loop and
// every rebinding in the body writes it (a read-modify-write of one on-chip tile across
// iterations). Reads before the rebinding read the previous iteration's value, reads after it the
// new one, as Python's name does; after the loop the name holds the last value. The dependence
// analysis then sees the carried value as what it is: a tensor written in every iteration and read
// in the next, so a move that reorders or separates the iterations sees it (analysis.h).
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// `op` writes the carried buffer itself (`acc = nl.add(acc, t)`): its own result tensor is no
// longer made.
void write_into_buffer(Kernel& k, Op& op, Access buffer, const Expr* target) {
  k.tensor(op.result).name = "";
  op.result = -1;
  op.dst = std::move(buffer);
  op.dst_origin = target;
}

// `m = m_new`: a copy into the buffer (Python makes the name denote m_new's tile; the values agree).
Op copy_into_buffer(Access buffer, const Expr* target, Operand src) {
  Op copy;
  copy.api = "assign";
  copy.cls = OpClass::Copy;
  copy.engine = Engine::Vector;
  copy.dst = std::move(buffer);
  copy.dst_origin = target;
  copy.args.push_back({"src", std::move(src)});
  return copy;
}

}  // namespace

std::map<std::string, int> Lifter::carry_buffers(const ForStmt& s, const std::vector<std::string>& names) {
  std::map<std::string, int> out;
  for (const auto& name : names) {
    const AValue& whole_value = env.at(name);
    if (whole_value.k == K::Tuple) {
      // Each item of a carried tuple of tiles is carried as a tile is, under the key `name[i]`.
      const std::map<std::string, int> carried_before = carried;
      for (size_t i = 0; i < whole_value.items.size(); ++i) {
        const std::string key = fmt::format("{}[{}]", name, i);
        env[key] = whole_value.items[i];  // checked like a name (no other name holds the tile)
        std::map<std::string, int> one;
        try {
          one = carry_buffers(s, {key});
        } catch (const LiftError&) {
          env.erase(key);
          carried = carried_before;
          // A loop with a constant trip count may still lift as its copies (for_loop).
          per_iteration_host_refused = true;
          throw;
        }
        env.erase(key);
        for (const auto& [k2, b] : out)
          if (b == one.at(key)) fail(s.span, fmt::format("the name '{}', a tuple carried from one iteration to the next "
                                                         "whose items {} and {} are the same tile", name, k2, key));
        out[key] = one.at(key);
        carried[key] = one.at(key);  // seen by the next item's checks
      }
      carried = carried_before;
      continue;
    }
    const AValue& v = whole_value;
    auto refuse = [&](const std::string& why) {
      fail(s.span, fmt::format("the name '{}', read by this loop's body before the body rebinds it (a value carried "
                               "from one iteration to the next through a Python name{})",
                               name, why.empty() ? "" : ": " + why));
    };
    if (v.k != K::Tile) {
      // `total = 0` then `total = total + nl.load(...)`, a decaying weight `w = w * 0.5`: the loop
      // may still lift as its copies (for_loop), the name rebound per copy as Python does.
      per_iteration_host_refused = true;
      refuse("a Python number, whose value differs per iteration");
    }
    const Tensor& t = k.tensor(v.access.tensor);
    if (!whole_access(v.access)) refuse("it holds part of a tensor, not a whole tile");
    // A tile an instruction made before the loop (`cur = nl.load(x[0:128, :])`, the prologue of a
    // hand-pipelined loop whose body loads the next tile and ends with `cur = nxt`) is carried as
    // a declared buffer is: written by that instruction and by every rebinding in the body (as the
    // printed `cur[...] = nxt` writes it, which lifts to the same form).
    bool made_before = t.role == TensorRole::Value &&
                       (t.scope_loop < 0 || std::find(loop_stack.begin(), loop_stack.end(), t.scope_loop) != loop_stack.end());
    if (!t.on_chip() || (t.role != TensorRole::Buffer && !made_before) || !t.list_name.empty())
      refuse("it holds no tile declared or made on chip before the loop (nl.zeros / nl.full / nl.ndarray / an "
             "instruction's result)");
    if (t.partition_dim != 0) refuse("it holds a buffer with block dims, not one tile");
    for (const auto& [other, w] : env)
      if (other != name && w.k == K::Tile && w.access.tensor == v.access.tensor)
        refuse(fmt::format("'{}' names the same tile, and would change with it", other));
    for (const auto& [other, c] : carried)
      if (c == v.access.tensor && other != name) refuse(fmt::format("'{}' carries the same tile", other));
    out[name] = v.access.tensor;
  }
  return out;
}

void Lifter::rebind_carried(const AssignStmt& s, const std::string& name, const AValue& v, Op* root,
                            std::vector<Op>& ops) {
  int buffer = carried.at(name);
  const Tensor& b = k.tensor(buffer);
  auto refuse = [&](const std::string& why) {
    fail(s.span, fmt::format("the rebinding of '{}', a tile carried from one iteration to the next ({})", name, why));
  };
  if (v.k != K::Tile) refuse("to a value that is no tile");
  if (v.access.tensor == buffer) refuse("to itself or a part of itself");
  std::vector<IExpr> shape = v.access.tile_shape();
  auto text = [&](const std::vector<IExpr>& dims) {
    std::string out;
    for (const auto& d : dims) out += (out.empty() ? "" : ", ") + k.str(d);
    return out;
  };
  if (shape != b.shape) refuse(fmt::format("to a tile of shape [{}], not the carried tile's [{}]", text(shape), text(b.shape)));
  const std::string& dtype = k.tensor(v.access.tensor).dtype;
  if (!dtype.empty() && !b.dtype.empty() && dtype != b.dtype)
    refuse(fmt::format("to a {} tile, not the carried tile's {}", dtype, b.dtype));
  // The statement's own operation makes the value (a helper's result may be one of its operands:
  // `acc = nl.add(rescale(acc, m), s)`); a value a helper returns is written inside the helper.
  bool own_result = root && root->result >= 0 && whole_access(v.access);
  if (!own_result && !pending_inline.empty())
    refuse("to a helper's result: the form writes a carried tile by one operation of the statement");
  if (!ops.empty()) {
    if (!own_result) refuse("to a value no single operation of the statement returns");
    write_into_buffer(k, *root, whole(buffer), s.targets[0].get());
    return;
  }
  ops.push_back(copy_into_buffer(whole(buffer), s.targets[0].get(), to_operand(*this, v, s.value.get())));
}

std::vector<std::string> Lifter::carried_items(const std::string& name) const {
  std::vector<std::string> keys;
  for (size_t i = 0;; ++i) {
    std::string key = fmt::format("{}[{}]", name, i);
    if (!carried.count(key)) return keys;
    keys.push_back(std::move(key));
  }
}

namespace {

// The tensor a tile operand reads, through views to their base.
int base_tensor(const Kernel& k, int t) {
  while (t >= 0 && k.tensor(t).role == TensorRole::View && k.tensor(t).base >= 0 && k.tensor(t).base != t) t = k.tensor(t).base;
  return t;
}

}  // namespace

void Lifter::rebind_carried_items(const AssignStmt& s, const std::vector<std::string>& keys, const AValue& v,
                                  std::vector<Op>& ops, std::vector<Node>& out) {
  std::string what;
  for (const auto& key : keys)
    if (!key.empty()) what += (what.empty() ? "'" : ", '") + key + "'";
  what += "'";
  auto refuse = [&](const std::string& why) {
    per_iteration_host_refused = true;  // a loop with a constant trip count may still lift as its copies
    fail(s.span, fmt::format("the rebinding of {}, carried from one iteration to the next, by one statement ({})", what, why));
  };
  if ((v.k != K::Tuple && v.k != K::List) || v.items.size() != keys.size())
    refuse(fmt::format("to a value that is not a tuple of {} items", keys.size()));
  std::vector<int> written_by(ops.size(), -1);  // op -> the buffer it now writes
  std::vector<Op> copies;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].empty()) continue;
    const int buffer = carried.at(keys[i]);
    const Tensor& b = k.tensor(buffer);
    const AValue& item = v.items[i];
    if (item.k != K::Tile) refuse(fmt::format("item {} is no tile", i));
    if (item.access.tensor == buffer && whole_access(item.access)) continue;  // rebound to itself: unchanged
    if (item.access.tile_shape() != b.shape) refuse(fmt::format("item {} has another shape than the carried tile", i));
    const std::string& dtype = k.tensor(item.access.tensor).dtype;
    if (!dtype.empty() && !b.dtype.empty() && dtype != b.dtype)
      refuse(fmt::format("item {} is a {} tile, not the carried tile's {}", i, dtype, b.dtype));
    size_t p = ops.size();
    if (whole_access(item.access))
      for (size_t j = 0; j < ops.size(); ++j)
        if (ops[j].result == item.access.tensor && written_by[j] < 0) p = j;
    if (p < ops.size()) {
      write_into_buffer(k, ops[p], whole(buffer), s.targets[0].get());
      written_by[p] = buffer;
      continue;
    }
    // A tile made elsewhere (`a, b = b_new, t`): a copy into the buffer after the statement's operations.
    copies.push_back(copy_into_buffer(whole(buffer), s.targets[0].get(), to_operand(*this, item, nullptr)));
  }
  for (auto& c : copies) {
    written_by.push_back(c.dst->tensor);
    ops.push_back(std::move(c));
  }
  // Python reads every item's old value before binding: no operation may read a buffer an earlier
  // operation of the statement wrote.
  std::set<int> written;
  for (size_t j = 0; j < ops.size(); ++j) {
    for (const Arg& a : ops[j].args)
      if (a.value.kind == Operand::Kind::Tile && written.count(base_tensor(k, a.value.access.tensor)))
        refuse(fmt::format("an item reads '{}' after an earlier item's operation wrote it, where Python reads the old tile",
                           k.tensor(base_tensor(k, a.value.access.tensor)).name));
    if (written_by[j] >= 0) written.insert(written_by[j]);
  }
  Node n = ops_node(s, std::move(ops));
  freeze(n);
  out.push_back(std::move(n));
}

void Lifter::check_not_alias_of_carried(const Expr& target, const AValue& v) const {
  if (carried.empty()) return;
  if ((target.kind == ExprKind::Tuple || target.kind == ExprKind::List) && (v.k == K::Tuple || v.k == K::List)) {
    auto& t = static_cast<const SequenceExpr&>(target);
    for (size_t i = 0; i < t.elts.size() && i < v.items.size(); ++i) check_not_alias_of_carried(*t.elts[i], v.items[i]);
    return;
  }
  if (target.kind == ExprKind::Name && carried.count(static_cast<const NameExpr&>(target).id))
    fail(target.span, fmt::format("the rebinding of '{}', a tile carried from one iteration to the next, by "
                                  "unpacking (the form writes a carried tile by one operation)", print_expr(target)));
  if (v.k != K::Tile) return;
  for (const auto& [name, buffer] : carried)
    if (v.access.tensor == buffer) {
      // An item of a carried tuple unpacked (`a, b = state`): a loop of constant trip count may
      // still lift as the copies Python's trace runs (for_loop), where each name keeps its tile.
      if (name.find('[') != std::string::npos) per_iteration_host_refused = true;
      fail(target.span, fmt::format("'{}' bound to the tile carried through '{}' (the carried tile changes under "
                                    "it where Python's name keeps the old tile)", print_expr(target), name));
    }
}

}  // namespace loopnest::detail
