#include "loopnest/nest_walk.h"

#include <algorithm>
#include <map>

#include "loopnest/transform.h"
#include "nki/ast_printer.h"
#include "nki/ast_walk.h"
#include "tensor/dtype.h"
#include "trn/arch_config.h"

namespace loopnest {

int loop_named(const Kernel& k, const std::string& var) {
  int found = -1, count = 0;
  for (const auto& [id, l] : k.loops)
    if (l.var == var) found = id, ++count;
  return count == 1 ? found : -1;
}

int64_t itemsize_of(const std::string& dtype) {
  auto t = tensor::parse_dtype(dtype);
  return t ? tensor::itemsize(*t) : 4;
}

const Op* sole_op(const Node& n) {
  const Op* x = nullptr;
  for (const auto& op : n.ops) {
    if (is_declaration(op)) continue;
    if (x) return nullptr;
    x = &op;
  }
  return x;
}

std::optional<int64_t> tile_bytes(const Tensor& t, size_t from) {
  int64_t n = itemsize_of(t.dtype);
  for (size_t d = from; d < t.shape.size(); ++d) {
    if (static_cast<int>(d) == t.partition_dim) continue;
    if (!t.shape[d].is_constant()) return std::nullopt;
    n *= t.shape[d].constant();
  }
  return n;
}

bool runs_in_order(const Kernel& k, const Loop& l) {
  return l.kind == LoopKind::Sequential || (l.kind == LoopKind::Range && !k.dialect.new_api);
}

double access_bytes(const Kernel& k, const Access& a) {
  double bytes = static_cast<double>(itemsize_of(k.tensor(a.tensor).dtype));
  for (const auto& d : a.tile_shape()) bytes *= d.is_constant() ? static_cast<double>(d.constant()) : 1.0;
  return bytes;
}

namespace {

// The dims of `t` each of whose accesses is one block of an iteration (other_sbuf_bytes): every
// access (declarations aside) indexes it at one point, by the same expression, of loops that
// enclose every access and not the declaration. Empty when a view or a frozen node reaches `t`.
std::set<size_t> per_iteration_dims(const Kernel& k, const Analysis& an, const Tensor& t) {
  std::vector<std::pair<const OpRef*, const Access*>> uses;
  const OpRef* decl = nullptr;
  for (const auto& r : an.ops) {
    std::vector<const Access*> all = reads(r.op());
    for (const Access* w : writes(r.op())) all.push_back(w);
    for (const Access* a : all) {
      if (a->tensor != t.id) {
        if (storage_of(k, a->tensor) == t.id) return {};
        continue;
      }
      if (is_declaration(r.op())) decl = &r;
      else uses.push_back({&r, a});
    }
  }
  if (uses.empty()) return {};
  // Loops around every access, less those around the declaration.
  std::set<int> common(uses[0].first->loops.begin(), uses[0].first->loops.end());
  for (const auto& [r, a] : uses) {
    std::set<int> here(r->loops.begin(), r->loops.end()), keep;
    for (int l : common)
      if (here.count(l)) keep.insert(l);
    common = keep;
  }
  if (decl)
    for (int l : decl->loops) common.erase(l);
  std::set<size_t> out;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (static_cast<int>(d) == t.partition_dim) continue;
    const IExpr& start = uses[0].second->dims.size() == t.shape.size() ? uses[0].second->dims[d].start : IExpr(0);
    bool one = !start.vars().empty();
    for (const auto& [r, a] : uses) {
      if (!one) break;
      one = a->dims.size() == t.shape.size() && a->dims[d].terms.empty() && a->dims[d].start == start;
    }
    for (int v : start.vars()) one = one && common.count(v);
    if (one) out.insert(d);
  }
  return out;
}

}  // namespace

int64_t other_sbuf_bytes(const Kernel& k, const Analysis& an, int except) {
  int64_t live = 0;
  for (const auto& o : k.tensors) {
    if (o.id == except || o.memory != Memory::Sbuf || o.role == TensorRole::View) continue;
    if (o.role != TensorRole::Buffer && o.role != TensorRole::Value) continue;
    std::set<size_t> once = per_iteration_dims(k, an, o);
    int64_t n = itemsize_of(o.dtype);
    for (size_t d = 0; d < o.shape.size(); ++d) {
      if (static_cast<int>(d) == o.partition_dim || once.count(d)) continue;
      n = o.shape[d].is_constant() ? n * o.shape[d].constant() : 0;
    }
    live += n;
  }
  return live;
}

int64_t sbuf_budget() { return trn::arch_config("trn1").sbuf_bytes_per_partition; }

std::map<std::string, double> engine_instructions(Kernel& k, bool dma) {
  std::map<std::string, double> out;
  Analysis an(k);
  for (const auto& r : an.ops) {
    const Op& op = r.op();
    if (op.engine == Engine::None || (op.engine == Engine::Dma && !dma) || is_declaration(op)) continue;
    double times = 1;
    for (int l : r.loops) {
      auto trip = k.loops.at(l).trip();
      if (!trip) return {};
      times *= static_cast<double>(*trip);
    }
    out[to_string(op.engine)] += times;
  }
  return out;
}

WorkChange work_change(const std::map<std::string, double>& before, Kernel& after) {
  WorkChange out;
  auto now = engine_instructions(after, true);
  for (const auto& [family, n] : now) {
    auto it = before.find(family);
    if (family != "dma" && it != before.end() && it->second > 0 && n > 1.01 * it->second) out.adds[family] = n / it->second;
  }
  for (const auto& [family, n] : before) {
    auto it = now.find(family);
    if (n > 0 && (it == now.end() ? 0.0 : it->second) < 0.99 * n) out.relieves.insert(family);
  }
  return out;
}

void names_of(const nki::Expr& e, std::set<std::string>& out) {
  if (e.kind == nki::ExprKind::Name) out.insert(static_cast<const nki::NameExpr&>(e).id);
  nki::for_each_child(const_cast<nki::Expr&>(e), [&](nki::ExprPtr& c) {
    if (c) names_of(*c, out);
  });
}

std::set<std::string> bound_names(const Node& loop) {
  std::set<std::string> out;
  if (authored_bound(loop).empty()) return out;
  const auto& call = static_cast<const nki::CallExpr&>(*static_cast<const nki::ForStmt&>(*loop.origin).iter);
  names_of(*call.args[0], out);
  return out;
}

bool reads_any(const std::set<std::string>& names, const std::set<std::string>& of) {
  for (const auto& n : names)
    if (of.count(n)) return true;
  return false;
}

std::set<int> loops_within(const Node& n) {
  std::set<int> out = {n.loop};
  for_each_node(n.body, [&](const Node& x, const std::vector<int>&) {
    if (x.kind == NodeKind::Loop) out.insert(x.loop);
  });
  return out;
}

std::vector<int> loops_around(const Kernel& k, int id) {
  std::vector<int> out;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& around) {
    if (n.id == id) out = around;
  });
  return out;
}

std::set<std::string> names_local_to(const Kernel& k, const Node& outer, const std::vector<int>& keep) {
  std::set<std::string> local;
  for_each_node(outer.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) local.insert(b);
  });
  std::set<int> inside = loops_within(outer);
  for (int l : inside) local.insert(k.var_name(l));
  for (const auto& o : k.tensors)
    if (inside.count(o.scope_loop) && !o.name.empty()) local.insert(o.name);
  for (int l : keep) local.erase(k.var_name(l));
  return local;
}

bool transparent_block(const Node& n) {
  if (n.kind != NodeKind::If || n.frozen || n.continues || !n.origin) return false;
  if (guard_copy(n)) return n.orelse.empty();
  if (directive_block(n)) return n.orelse.empty();
  if (n.origin->kind != nki::StmtKind::If || !n.cond_l.is_constant() || !n.cond_r.is_constant()) return false;
  const auto& i = static_cast<const nki::IfStmt&>(*n.origin);
  // Holding: its body runs, where no else branch is written (else the moved statement would also
  // run where the author chose the other branch). Failing: its else branch written runs (the
  // body is not lifted).
  if (holds(n.cond_l.constant(), n.cond, n.cond_r.constant())) return n.orelse.empty() && i.orelse.empty();
  return n.body.empty() && !i.orelse.empty();
}

std::vector<Node>& transparent_body(Node& n) {
  bool taken = n.cond_l.is_constant() && n.cond_r.is_constant() && holds(n.cond_l.constant(), n.cond, n.cond_r.constant());
  return taken ? n.body : n.orelse;
}

const std::vector<Node>& transparent_body(const Node& n) { return transparent_body(const_cast<Node&>(n)); }

bool guard_copy(const Node& n) {
  return n.kind == NodeKind::If && n.dirty && !n.patch.empty() && n.origin && n.origin->kind == nki::StmtKind::If;
}

std::vector<const Node*> blocks_between(const Node& loop, int id) {
  std::vector<const Node*> path, out;
  std::function<bool(const std::vector<Node>&)> walk = [&](const std::vector<Node>& block) {
    for (const auto& n : block) {
      if (n.id == id) {
        out = path;
        return true;
      }
      if (n.kind == NodeKind::Loop && walk(n.body)) return true;
      if (!transparent_block(n)) continue;
      path.push_back(&n);
      if (walk(transparent_body(n))) return true;
      path.pop_back();
    }
    return false;
  };
  walk(loop.body);
  return out;
}

namespace {

// The condition under which an if's else branch runs, as Python reads it: one comparison of numbers
// with its operator turned (`rem != 0` for `if rem == 0:`), else `not (test)`.
std::string negated(const nki::Expr& test) {
  using C = nki::CmpKind;
  static const std::map<C, C> turned = {{C::Eq, C::Ne}, {C::Ne, C::Eq}, {C::Lt, C::Ge},
                                        {C::Le, C::Gt}, {C::Gt, C::Le}, {C::Ge, C::Lt}};
  if (test.kind == nki::ExprKind::Compare) {
    const auto& c = static_cast<const nki::CompareExpr&>(test);
    if (c.ops.size() == 1 && turned.count(c.ops[0]))
      return nki::print_expr(*c.left) + " " + nki::symbol(turned.at(c.ops[0])) + " " + nki::print_expr(*c.comparators[0]);
  }
  return "not (" + nki::print_expr(test) + ")";
}

}  // namespace

std::vector<Node> guard_copies(Kernel& k, const std::vector<const Node*>& blocks, const std::set<std::string>& local) {
  std::vector<Node> out;
  for (const Node* b : blocks) {
    const Node& g = *b;
    if (g.origin->kind != nki::StmtKind::If) continue;  // a compiler directive's block: scheduling only
    const auto& test = *static_cast<const nki::IfStmt&>(*g.origin).test;
    std::set<std::string> names;
    names_of(test, names);
    if (reads_any(names, local)) continue;
    std::string header = g.patch;
    if (!guard_copy(g)) {
      header = "if " + (&transparent_body(g) == &g.body ? nki::print_expr(test) : negated(test)) + ":";
    }
    Node w;
    w.kind = NodeKind::If;
    w.id = k.next_node++;
    w.cond_l = IExpr(0), w.cond_r = IExpr(0), w.cond = Cmp::Eq;  // holds, as the lift decides it
    w.origin = g.origin;
    w.dirty = true;
    w.repeat_copy = true;  // the guard's comments stay above the guard
    w.patch = header;
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<Node> guard_bindings(const Kernel& k, const std::vector<const Node*>& blocks, int id,
                                 const std::set<std::string>& local) {
  std::map<std::string, int> bound;  // how often the kernel binds each name
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& b : n.binds) ++bound[b];
  });
  auto holds_id = [id](const Node& n) {
    bool found = n.id == id;
    for_each_node(n.body, [&](const Node& x, const std::vector<int>&) { found = found || x.id == id; });
    for_each_node(n.orelse, [&](const Node& x, const std::vector<int>&) { found = found || x.id == id; });
    return found;
  };
  std::vector<Node> out;
  for (const Node* b : blocks) {
    for (const Node& n : transparent_body(*b)) {
      if (holds_id(n)) break;
      if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || !n.origin || n.dirty ||
          n.origin->kind != nki::StmtKind::Assign)
        continue;
      std::set<std::string> reads;
      names_of(*static_cast<const nki::AssignStmt&>(*n.origin).value, reads);
      bool once = std::all_of(n.binds.begin(), n.binds.end(), [&](const std::string& x) { return bound[x] == 1; });
      if (!once || reads_any(reads, local)) continue;
      Node copy = n;
      copy.id = -1;
      copy.repeat_copy = true;
      out.push_back(std::move(copy));
    }
  }
  return out;
}

std::vector<Node> named_guard_bindings(Kernel& k, const std::vector<const Node*>& blocks, const Node& stmt,
                                       const std::set<std::string>& local) {
  std::vector<Node> out;
  for (Node& b : guard_bindings(k, blocks, stmt.id, local)) {
    if (std::none_of(b.binds.begin(), b.binds.end(), [&](const std::string& n) { return mentions(k, stmt, n); })) continue;
    b.id = k.next_node++;
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<Node> under_copies(std::vector<Node> nodes, std::vector<Node> copies) {
  for (auto it = copies.rbegin(); it != copies.rend(); ++it) {
    it->body = std::move(nodes);
    nodes.clear();
    nodes.push_back(std::move(*it));
  }
  return nodes;
}

void insert_merged(std::vector<Node>& block, size_t at, Node n) {
  if (at > 0 && guard_copy(n) && guard_copy(block[at - 1]) && block[at - 1].patch == n.patch &&
      block[at - 1].origin == n.origin) {
    Node& into = block[at - 1];
    for (auto& c : n.body) insert_merged(into.body, into.body.size(), std::move(c));
    return;
  }
  block.insert(block.begin() + static_cast<long>(at), std::move(n));
}

void insert_merged(std::vector<Node>& block, size_t at, std::vector<Node> nodes) {
  for (auto& n : nodes) {
    const size_t before = block.size();
    insert_merged(block, at, std::move(n));
    at += block.size() - before;
  }
}

std::vector<Node*> body_through_blocks(Node& loop) {
  std::vector<Node*> out;
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& block) {
    for (auto& n : block) {
      if (transparent_block(n)) walk(transparent_body(n));
      else out.push_back(&n);
    }
  };
  walk(loop.body);
  return out;
}

void each_stmt(Kernel& k, const std::function<void(Node&, const std::vector<const Node*>&)>& fn) {
  std::vector<const Node*> path;
  std::function<void(std::vector<Node>&)> walk = [&](std::vector<Node>& block) {
    for (auto& n : block) {
      if (n.frozen) continue;
      if (n.kind == NodeKind::Stmt) {
        fn(n, path);
        continue;
      }
      if (n.kind != NodeKind::Loop && n.kind != NodeKind::If) continue;
      if (transparent_block(n)) {
        walk(transparent_body(n));
        continue;
      }
      path.push_back(&n);
      walk(n.body);
      walk(n.orelse);
      path.pop_back();
    }
  };
  walk(k.body);
}

int loops_left(Kernel& k, int stmt, int outer, const std::vector<int>& used) {
  int n = 0;
  int outer_loop = find_node(k, outer)->loop;
  for_each_node(k.body, [&](const Node& x, const std::vector<int>& loops) {
    if (x.id != stmt) return;
    for (auto it = std::find(loops.begin(), loops.end(), outer_loop); it != loops.end(); ++it)
      if (std::find(used.begin(), used.end(), *it) == used.end()) ++n;
  });
  return n;
}

namespace {

// The loop node of loop `l` as the author wrote it (none when a move rewrote it).
const Node* authored_loop(Kernel& k, int l) {
  const Node* out = nullptr;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Loop && !n.dirty && n.loop == l) out = &n;
  });
  return out;
}

}  // namespace

std::string printable_bound(Kernel& k, int l, const std::set<std::string>& local) {
  const Node* n = authored_loop(k, l);
  return n && !reads_any(bound_names(*n), local) ? authored_bound(*n) : "";
}

Node in_loop_copies(Kernel& k, Node fill, const std::vector<int>& used, const std::set<std::string>& local,
                    const std::optional<Node>& first) {
  std::vector<Node> body;
  body.push_back(std::move(fill));
  auto nodes = in_loop_copies(k, std::move(body), used, local, first);
  return std::move(nodes.front());
}

std::vector<Node> in_loop_copies(Kernel& k, std::vector<Node> fill, const std::vector<int>& used,
                                 const std::set<std::string>& local, const std::optional<Node>& first) {
  std::map<int, std::string> headers;  // loop id -> the authored header of its copy
  for (int l : used) {
    const Node* n = authored_loop(k, l);
    if (n && !reads_any(bound_names(*n), local)) headers[l] = authored_header(*n, k.var_name(l), 1);
  }
  for (auto it = used.rbegin(); it != used.rend(); ++it) {
    int id = add_loop(k, k.loops.at(*it));
    std::vector<Node> body;
    if (first && it + 1 == used.rend()) body.push_back(*first);
    for (auto& n : fill) body.push_back(std::move(n));
    substitute_nodes(k, body, *it, IExpr::var(id));
    Node loop;
    loop.kind = NodeKind::Loop;
    loop.id = k.next_node++;
    loop.loop = id;
    loop.dirty = true;
    if (headers.count(*it)) loop.patch = headers.at(*it);
    loop.body = std::move(body);
    fill.clear();
    fill.push_back(std::move(loop));
  }
  return fill;
}

void forget_local_text(std::vector<Op>& ops, const std::set<std::string>& local) {
  for (auto& op : ops) {
    if (is_declaration(op)) continue;
    for (auto& a : op.args) {
      if (a.value.kind != Operand::Kind::Tile || !a.value.origin) continue;
      std::set<std::string> names;
      names_of(*a.value.origin, names);
      if (reads_any(names, local)) a.value.origin = nullptr;
    }
  }
}

std::vector<Node>* parent_block(std::vector<Node>& block, int id, size_t& at) {
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i].id == id) {
      at = i;
      return &block;
    }
    if (auto* p = parent_block(block[i].body, id, at)) return p;
    if (auto* p = parent_block(block[i].orelse, id, at)) return p;
  }
  return nullptr;
}

}  // namespace loopnest
