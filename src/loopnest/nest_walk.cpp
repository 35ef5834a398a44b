#include "loopnest/nest_walk.h"

#include "loopnest/transform.h"
#include "nki/ast_walk.h"
#include "tensor/dtype.h"
#include "trn/arch_config.h"

namespace loopnest {

int64_t itemsize_of(const std::string& dtype) {
  auto t = tensor::parse_dtype(dtype);
  return t ? tensor::itemsize(*t) : 4;
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

int64_t other_sbuf_bytes(const Kernel& k, int except) {
  int64_t live = 0;
  for (const auto& o : k.tensors) {
    if (o.id == except || o.memory != Memory::Sbuf || o.role == TensorRole::View) continue;
    if (o.role != TensorRole::Buffer && o.role != TensorRole::Value) continue;
    live += tile_bytes(o, static_cast<size_t>(o.partition_dim) + 1).value_or(0);
  }
  return live;
}

int64_t sbuf_budget() { return trn::arch_config("trn1").sbuf_bytes_per_partition; }

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
      path.push_back(&n);
      walk(n.body);
      walk(n.orelse);
      path.pop_back();
    }
  };
  walk(k.body);
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
