// A DMA transpose replaced by a Tensor Engine transpose of a tile the kernel loads anyway:
//
//   aT = nl.load_transpose2d(a[rows, cols]); ...; a_rows = nl.load(a[rows, cols])
//   ->  a_rows = nl.load(a[rows, cols]); aT = nl.copy(nisa.nc_transpose(a_rows)); ...
//
// A transposing access is the same DMA written as a load: `nl.load(a[m0 + i_f, i_p])` with the
// tile's partitions walking a later (more contiguous) dim of the tensor than its free axis
// (`i_p = nl.arange(K)[:, None]`, `i_f = nl.arange(P)[None, :]`); its plain region is the access
// with the two tile axes exchanged (a [128 x 64] bmm operand: 4.38 -> 4.10 ms at the bmm size).
//
// A transposing DMA moves the tile element by element (2-4 byte descriptors: the DMA queues'
// slowest case, trainium-performance.md 1.6), while the plain load streams whole rows; the Tensor
// Engine transposes a [<=128, <=128] tile in one pass into PSUM and a copy brings it back to SBUF.
// usr_load_transpose_matmul: DMA loads busy 3.53 -> 1.00 us, 11.25 -> 8.33 us.
//
// Legal from the form: the transposing load and the plain load read the same region (equal
// accesses) of a tensor no operation of the kernel writes, in the same block; when the plain load
// comes later it must commute with every node between (commute.h) and moves up; the transposed tile
// fits one Tensor Engine transpose (at most 128 x 128). Without such a plain load the move adds one
// (`reuse=no`): a plain load and a PE transpose still beat the transposing DMA (same kernel with
// its own load: 11.25 -> 9.58 us).
#include <optional>

#include <fmt/core.h>

#include "loopnest/commute.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool fits_one_transpose(const Tensor& t) {
  if (t.shape.size() != 2) return false;
  for (const auto& d : t.shape)
    if (!d.is_constant() || d.constant() > 128 || d.constant() < 1) return false;
  return true;
}

// The access reading the same elements with the tile's two axes exchanged, when `a` is a
// transposing one: two tile axes, each one affine term of a dim of its own, the free axis's dim
// before the partition axis's (so the tile's partition rows are strided and its free elements are
// not contiguous). nullopt otherwise.
std::optional<Access> plain_of_transposing(const Access& a) {
  if (a.rank != -1 && a.rank != 2) return std::nullopt;
  int dim_of[2] = {-1, -1};
  for (size_t d = 0; d < a.dims.size(); ++d) {
    const auto& terms = a.dims[d].terms;
    if (terms.empty()) continue;
    if (terms.size() != 1 || !terms[0].affine() || terms[0].stride != 1 || terms[0].axis < 0 || terms[0].axis > 1 ||
        dim_of[terms[0].axis] >= 0)
      return std::nullopt;
    dim_of[terms[0].axis] = static_cast<int>(d);
  }
  if (dim_of[0] < 0 || dim_of[1] < 0 || dim_of[1] > dim_of[0]) return std::nullopt;
  Access plain = a;
  for (auto& d : plain.dims)
    for (auto& t : d.terms) t.axis = 1 - t.axis;
  return plain;
}

struct Found {
  int transposed_node = -1, plain_node = -1;  // plain_node -1: a load is added
  int transposed = -1, plain = -1;  // result tensors
  Operand src;                      // the region both read
  bool dst_first = false;           // the newer API's `nisa.dma_copy(dst=xt, src=...)` into a declared tile
};

class TransposeOnPe : public Transform {
 public:
  std::string name() const override { return "transpose_on_pe"; }
  std::string description() const override {
    return "transpose a tile the kernel also loads plainly on the Tensor Engine instead of a transposing DMA";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    Analysis an(k);
    for (const OpRef& t : an.ops) {
      auto f = candidate(k, an, t);
      if (!f) continue;
      Site s = make_site(k, an, t,
                         f->plain >= 0 ? fmt::format("transpose `{}` on the Tensor Engine from `{}` instead of a "
                                                     "transposing DMA", k.tensor(f->transposed).name, k.tensor(f->plain).name)
                                       : fmt::format("load `{}` plainly and transpose it on the Tensor Engine instead of a "
                                                     "transposing DMA", k.tensor(f->transposed).name),
                         {{"reuse", f->plain >= 0 ? "yes" : "no"}});
      s.relieves = {"dma"};
      s.feeds = {"pe"};
      Found found = *f;
      if (sink(s, [&k, found] { apply(k, found); })) return true;
    }
    return false;
  }

 private:
  static std::optional<Found> candidate(Kernel& k, const Analysis& an, const OpRef& t) {
    const Op& op = t.op();
    // The newer API's transposing load (`nisa.dma_copy(dst=xt, src=x[rows, cols].permute((1, 0)))`)
    // is the same DMA written destination-first into a declared tile: the same move, printed in
    // that dialect (a declared rows tile, nc_transpose into a declared PSUM tile, tensor_copy out).
    if (op.api == "nisa.dma_copy" && op.dst_first && op.cls == OpClass::Load && !t.node->frozen &&
        t.node->ops.size() == 1 && !op.has_mask)
      return dst_first_candidate(k, an, op, *t.node);
    if ((op.api != "nl.load_transpose2d" && op.api != "nl.load") || t.node->frozen || t.node->ops.size() != 1 ||
        op.result < 0 || op.has_mask || (op.api == "nl.load" && !op.dtype.empty()))
      return std::nullopt;
    const Operand* written = operand(op, "src");
    if (!written || written->kind != Operand::Kind::Tile || !an.writers(k, storage_of(k, written->access.tensor)).empty())
      return std::nullopt;
    // The region a plain load of the rows reads: load_transpose2d's source as written, a
    // transposing load's with its axes exchanged.
    Operand plain_src = *written;
    if (op.api == "nl.load") {
      auto plain = k.tensor(storage_of(k, written->access.tensor)).on_chip() ? std::nullopt
                                                                              : plain_of_transposing(written->access);
      if (!plain) return std::nullopt;
      plain_src.access = *plain;
      plain_src.origin = nullptr;
    }
    const Operand* src = &plain_src;
    const Tensor& x = k.tensor(op.result);
    if (x.name.empty() || !fits_one_transpose(x)) return std::nullopt;
    for (const OpRef& l : an.ops) {
      const Op& lop = l.op();
      if (l.block != t.block || lop.api != "nl.load" || l.node->frozen || l.node->ops.size() != 1 || lop.result < 0 ||
          lop.has_mask || !lop.dtype.empty())
        continue;
      const Operand* lsrc = operand(lop, "src");
      if (!lsrc || lsrc->kind != Operand::Kind::Tile || !(lsrc->access == src->access)) continue;
      const Tensor& r = k.tensor(lop.result);
      if (r.name.empty() || r.dtype != x.dtype) continue;
      // A later plain load moves up to the transposing one.
      for (size_t i = t.position + 1; i < l.position; ++i)
        if (!commute(k, (*t.block)[i], *l.node)) return std::nullopt;
      return Found{t.node->id, l.node->id, op.result, lop.result, *src};
    }
    return Found{t.node->id, -1, op.result, -1, *src};
  }

  static std::optional<Found> dst_first_candidate(Kernel& k, const Analysis& an, const Op& op, const Node& node) {
    const Operand* written = operand(op, "src");
    if (!written || written->kind != Operand::Kind::Tile || !op.dst || !accesses_whole(k, *op.dst) ||
        !an.writers(k, storage_of(k, written->access.tensor)).empty())
      return std::nullopt;
    const Tensor& src = k.tensor(storage_of(k, written->access.tensor));
    const Tensor& x = k.tensor(op.dst->tensor);
    if (src.on_chip() || !x.on_chip() || x.memory != Memory::Sbuf || x.name.empty() || x.dtype != src.dtype ||
        !fits_one_transpose(x))
      return std::nullopt;
    auto plain = plain_of_transposing(written->access);
    if (!plain) return std::nullopt;
    Operand plain_src = *written;
    plain_src.access = *plain;
    plain_src.origin = nullptr;
    return Found{node.id, -1, op.dst->tensor, -1, plain_src, true};
  }

  // `xt_rows = nl.ndarray(...)`, `nisa.dma_copy(dst=xt_rows, src=<plain>)`, `xt_ps = nl.ndarray(...,
  // buffer=nl.psum)`, `nisa.nc_transpose(dst=xt_ps, data=xt_rows)` before the transposing copy, which
  // becomes `nisa.tensor_copy(dst=xt, src=xt_ps)`.
  static void apply_dst_first(Kernel& k, const Found& f, std::vector<Node>& block, size_t at) {
    // Copies: add_tensor may move the tensors.
    const std::string base = k.tensor(f.transposed).name, dtype = k.tensor(f.transposed).dtype;
    const int scope = k.tensor(f.transposed).scope_loop;
    const std::vector<IExpr> shape = k.tensor(f.transposed).shape;
    auto declared = [&](const std::string& name, Memory memory, std::vector<IExpr> dims) {
      Tensor t;
      t.name = fresh_loop_var(k, name);
      t.role = TensorRole::Buffer;
      t.memory = memory;
      t.shape = std::move(dims);
      t.dtype = dtype;
      t.scope_loop = scope;
      return add_tensor(k, std::move(t));
    };
    const int rows = declared(base + "_rows", Memory::Sbuf, f.src.access.tile_shape());
    const int psum = declared(base + "_ps", Memory::Psum, shape);
    auto dst_first_op = [&](const std::string& api, OpClass cls, Engine engine, int dst, std::vector<Arg> args) {
      Op op;
      op.api = api;
      op.cls = cls;
      op.engine = engine;
      op.dst = whole_of(k, dst);
      op.dst_first = true;
      op.args = std::move(args);
      for (auto& a : op.args) a.positional = false;
      return op;
    };
    std::vector<Node> added;
    added.push_back(declaration_node(k, rows));
    added.push_back(
        new_statement(k, {dst_first_op("nisa.dma_copy", OpClass::Load, Engine::Dma, rows, {arg("src", f.src)})}));
    added.push_back(declaration_node(k, psum));
    added.push_back(new_statement(k, {dst_first_op("nisa.nc_transpose", OpClass::Transpose, Engine::Tensor, psum,
                                                   {arg("data", tile_operand(whole_of(k, rows)))})}));
    Node& n = block[at];
    n.ops = {dst_first_op("nisa.tensor_copy", OpClass::Copy, Engine::Vector, f.transposed,
                          {arg("src", tile_operand(whole_of(k, psum)))})};
    n.dirty = true;
    n.patch.clear();
    block.insert(block.begin() + static_cast<long>(at), std::make_move_iterator(added.begin()),
                 std::make_move_iterator(added.end()));
  }

  static void apply(Kernel& k, const Found& f) {
    std::vector<Node>* block = nullptr;
    size_t at = 0, plain_at = 0;
    auto locate = [&](std::vector<Node>& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i].id == f.transposed_node) block = &b, at = i;
        if (b[i].id == f.plain_node) plain_at = i;
      }
    };
    locate(k.body);
    for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
      if (!block) locate(n.body);
      if (!block) locate(n.orelse);
    });
    if (!block) throw TransformError("transpose_on_pe: the transposing load is gone");
    if (f.dst_first) return apply_dst_first(k, f, *block, at);
    Found g = f;
    if (g.plain_node < 0) {
      // `<name>_rows = nl.load(src)` before the transposing load.
      const Tensor& x = k.tensor(f.transposed);
      Tensor r;
      r.name = fresh_loop_var(k, x.name + "_rows");
      r.role = TensorRole::Value;
      r.memory = Memory::Sbuf;
      r.shape = f.src.access.tile_shape();
      r.dtype = x.dtype;
      r.scope_loop = x.scope_loop;
      const int rows = add_tensor(k, std::move(r));
      Op ld;
      ld.api = "nl.load";
      ld.cls = OpClass::Load;
      ld.engine = Engine::Dma;
      ld.result = rows;
      ld.dst = whole_of(k, rows);
      ld.args = {arg("src", f.src)};
      block->insert(block->begin() + static_cast<long>(at), new_statement(k, {ld}));
      ++at;
      g.plain = rows;
    } else if (plain_at > at) {
      Node plain = std::move((*block)[plain_at]);
      block->erase(block->begin() + static_cast<long>(plain_at));
      block->insert(block->begin() + static_cast<long>(at), std::move(plain));
      ++at;
    }
    const Tensor& x = k.tensor(f.transposed);
    Tensor p;
    p.role = TensorRole::Value;
    p.memory = Memory::Psum;
    p.shape = x.shape;
    // nisa.nc_transpose without dtype= gives its data's dtype (a bf16 tile transposes to bf16 in
    // PSUM), as the lift of the printed call types it.
    p.dtype = k.tensor(g.plain).dtype;
    p.scope_loop = x.scope_loop;
    const int psum = add_tensor(k, std::move(p));
    Op tr;
    tr.api = "nisa.nc_transpose";
    tr.cls = OpClass::Transpose;
    tr.engine = Engine::Tensor;
    tr.result = psum;
    tr.dst = whole_of(k, psum);  // a result's region, as the lifter records it
    tr.args = {arg("data", tile_operand(whole_of(k, g.plain)))};
    Op cp;
    cp.api = "nl.copy";
    cp.cls = OpClass::Copy;
    cp.engine = Engine::Vector;
    cp.result = f.transposed;
    cp.dst = whole_of(k, f.transposed);
    cp.args = {arg("src", tile_operand(whole_of(k, psum)))};
    if (k.tensor(f.transposed).dtype != k.tensor(psum).dtype)
      cp.args.push_back(arg("dtype", symbol("dtype:" + k.tensor(f.transposed).dtype)));
    Node& n = (*block)[at];
    n.ops = {tr, cp};
    n.dirty = true;
    n.patch.clear();
  }
};

}  // namespace

std::unique_ptr<Transform> make_transpose_on_pe() { return std::make_unique<TransposeOnPe>(); }

}  // namespace loopnest
