#include "loopnest/form.h"

#include <algorithm>
#include <utility>

#include "nki/ast.h"

namespace loopnest {

const char* to_string(Memory m) {
  switch (m) {
    case Memory::Hbm: return "hbm";
    case Memory::Sbuf: return "sbuf";
    case Memory::Psum: return "psum";
  }
  return "?";
}

const char* to_string(TensorRole r) {
  switch (r) {
    case TensorRole::Argument: return "argument";
    case TensorRole::Output: return "output";
    case TensorRole::Scratch: return "scratch";
    case TensorRole::Buffer: return "buffer";
    case TensorRole::Value: return "value";
    case TensorRole::View: return "view";
    case TensorRole::Constant: return "constant";
  }
  return "?";
}

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::Alloc: return "alloc";
    case OpClass::Memset: return "memset";
    case OpClass::Load: return "load";
    case OpClass::Store: return "store";
    case OpClass::DmaCopy: return "dma";
    case OpClass::Elementwise: return "elementwise";
    case OpClass::Activation: return "activation";
    case OpClass::Reduce: return "reduce";
    case OpClass::Matmul: return "matmul";
    case OpClass::Transpose: return "transpose";
    case OpClass::Copy: return "copy";
    case OpClass::Broadcast: return "broadcast";
    case OpClass::Scan: return "scan";
    case OpClass::Other: return "other";
  }
  return "?";
}

const char* to_string(Engine e) {
  switch (e) {
    case Engine::None: return "none";
    case Engine::Dma: return "dma";
    case Engine::Tensor: return "pe";
    case Engine::Vector: return "dve";
    case Engine::Scalar: return "act";
    case Engine::GpSimd: return "pool";
  }
  return "?";
}

const char* to_string(LoopKind k) {
  switch (k) {
    case LoopKind::Affine: return "affine_range";
    case LoopKind::Sequential: return "sequential_range";
    case LoopKind::Static: return "static_range";
    case LoopKind::Range: return "range";
  }
  return "?";
}

std::optional<int64_t> AxisTerm::max_index() const {
  if (!size.is_constant()) return std::nullopt;
  int64_t top = (size.constant() - 1) / div;
  return mod > 0 ? std::min(top, mod - 1) : top;
}

std::vector<IExpr> Access::tile_shape() const {
  std::map<int, IExpr> sizes;
  for (const auto& d : dims)
    for (const auto& t : d.terms) {
      auto it = sizes.find(t.axis);
      if (it == sizes.end() || (it->second.is_constant() && it->second.constant() == 1)) sizes[t.axis] = t.size;
    }
  std::vector<IExpr> out;
  if (rank >= 0) {
    for (int a = 0; a < rank; ++a) out.push_back(sizes.count(a) ? sizes[a] : IExpr(1));
    return out;
  }
  for (int a = 0; sizes.count(a); ++a) out.push_back(sizes[a]);
  return out;
}

bool DimIndex::operator==(const DimIndex& o) const {
  if (start != o.start || terms.size() != o.terms.size()) return false;
  for (size_t t = 0; t < terms.size(); ++t) {
    const AxisTerm &a = terms[t], &b = o.terms[t];
    if (a.axis != b.axis || a.size != b.size || a.stride != b.stride || a.div != b.div || a.mod != b.mod) return false;
  }
  return true;
}

bool Access::operator==(const Access& o) const {
  return tensor == o.tensor && dims == o.dims && tile_shape().size() == o.tile_shape().size();
}

const Arg* Op::arg(const std::string& name) const {
  for (const auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

Arg* Op::arg(const std::string& name) {
  for (auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<int64_t> Loop::trip() const {
  IExpr n = stop - start;
  if (!n.is_constant()) return std::nullopt;
  int64_t span = n.constant();
  // A loop walking backwards (`range(n - 1, -1, -1)`) runs while the value stays above stop.
  if (step < 0) return span >= 0 ? 0 : (-span - step - 1) / -step;
  return span <= 0 ? 0 : (span + step - 1) / step;
}

Ranges Kernel::ranges() const {
  Ranges r;
  // Loops are numbered in the order they open, so outer loops come first.
  for (const auto& [id, loop] : loops) {
    auto lo = loop.start.bounds(r), hi = loop.stop.bounds(r);
    if (!lo || !hi) continue;
    if (loop.step < 0) {
      // Backwards: from start down to just above stop (the last value exact when both are constant).
      int64_t first = lo->second, low = hi->first + 1;
      if (loop.start.is_constant() && loop.stop.is_constant() && loop.trip() && *loop.trip() > 0)
        low = loop.start.constant() + (*loop.trip() - 1) * loop.step;
      r[id] = {std::min(low, first), first};
      continue;
    }
    int64_t last = hi->second - 1;
    if (loop.step > 1 && loop.start.is_constant()) last = loop.start.constant() + (last - loop.start.constant()) / loop.step * loop.step;
    r[id] = {lo->first, std::max(lo->first, last)};
  }
  return r;
}

std::string Kernel::var_name(int loop) const {
  auto it = loops.find(loop);
  return it == loops.end() ? "?" : it->second.var;
}

std::string Kernel::str(const IExpr& e) const {
  return e.str([this](int v) { return var_name(v); });
}

namespace {

template <class Vec, class Fn>
void visit(Vec& body, std::vector<int>& loops, const Fn& fn) {
  for (auto& n : body) {
    fn(n, loops);
    if (n.kind == NodeKind::Loop) loops.push_back(n.loop);
    visit(n.body, loops, fn);
    visit(n.orelse, loops, fn);
    if (n.kind == NodeKind::Loop) loops.pop_back();
  }
}

}  // namespace

void for_each_node(const std::vector<Node>& body, const std::function<void(const Node&, const std::vector<int>&)>& fn) {
  std::vector<int> loops;
  visit(body, loops, fn);
}

void for_each_node(std::vector<Node>& body, const std::function<void(Node&, const std::vector<int>&)>& fn) {
  std::vector<int> loops;
  visit(body, loops, fn);
}

bool directive_block(const Node& n) {
  return n.kind == NodeKind::If && n.origin && n.origin->kind == nki::StmtKind::With && n.orelse.empty();
}

bool gathers(const Op& op) {
  const Arg* a = op.arg(kGatherIndex);
  return a && a->value.kind == Operand::Kind::Tile;
}

bool scatters(const Op& op) {
  const Arg* a = op.arg(kScatterIndex);
  return a && a->value.kind == Operand::Kind::Tile;
}

void freeze(Node& n) {
  n.frozen = true;
  for (auto* nodes : {&n.body, &n.orelse})
    for_each_node(*nodes, [](Node& x, const std::vector<int>&) { x.frozen = true; });
}

Node* loop_node(Kernel& k, int loop) { return const_cast<Node*>(loop_node(std::as_const(k), loop)); }

void note_written(Kernel& k) {
  for_each_node(k.body, [](Node& n, const std::vector<int>&) {
    // `X[...] = op(...)`: the statement's own operation writes the target as written.
    const nki::Expr* target = nullptr;
    if (n.kind == NodeKind::Stmt && n.origin && n.origin->kind == nki::StmtKind::Assign) {
      const auto& a = static_cast<const nki::AssignStmt&>(*n.origin);
      if (a.targets.size() == 1 && a.targets[0]->kind == nki::ExprKind::Subscript) target = a.targets[0].get();
    }
    for (auto& op : n.ops) {
      const nki::Expr* dst = op.dst_origin ? op.dst_origin : (&op == &n.ops.back() ? target : nullptr);
      if (op.dst && dst) {
        op.dst_written = dst;
        op.dst_written_access = std::make_shared<const Access>(*op.dst);
      }
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && a.value.origin) {
          a.value.written = a.value.origin;
          a.value.written_access = std::make_shared<const Access>(a.value.access);
        } else if (a.value.kind == Operand::Kind::Shape && a.value.origin) {
          a.value.written = a.value.origin;
          a.value.written_shape = std::make_shared<const std::vector<IExpr>>(a.value.shape);
        }
    }
  });
}

void keep_leading_comments(const Node& gone, Node& to) {
  if (gone.origin && !to.leading_of_removed) to.leading_of_removed = gone.origin;
}

const Node* loop_node(const Kernel& k, int loop) {
  const Node* found = nullptr;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (!found && n.kind == NodeKind::Loop && n.loop == loop) found = &n;
  });
  return found;
}

bool accesses_whole(const Kernel& k, const Access& a) {
  const Tensor& t = k.tensor(a.tensor);
  if (a.dims.size() != t.shape.size()) return false;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const DimIndex& di = a.dims[d];
    if (!(di.start == IExpr(0)) || di.terms.size() != 1 || di.terms[0].axis != static_cast<int>(d) ||
        di.terms[0].stride != 1 || !di.terms[0].affine() || !(di.terms[0].size == t.shape[d]))
      return false;
  }
  return true;
}

Access whole_of(const Kernel& k, int t) {
  Access a;
  a.tensor = t;
  const Tensor& tt = k.tensor(t);
  for (size_t d = 0; d < tt.shape.size(); ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d), tt.shape[d], 1}}});
  return a;
}

int add_tensor(Kernel& k, Tensor t) {
  t.id = static_cast<int>(k.tensors.size());
  k.tensors.push_back(std::move(t));
  return k.tensors.back().id;
}

}  // namespace loopnest
