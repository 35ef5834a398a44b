// The hardware's limits on tiles (trn/tile_limits.h), checked on the form: what the interpreter
// would refuse when the kernel runs (a moving matmul operand wider than 512, a PSUM tile over one
// 2 KiB bank, more than 128 partitions), found before a rewrite that introduces it is evaluated.
#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "trn/tile_limits.h"

namespace loopnest {

namespace {

// The free size of an operand tile: the product of its axes after the partition axis (constant
// sizes only; nullopt otherwise).
std::optional<int64_t> free_size(const Access& a) {
  auto shape = a.tile_shape();
  int64_t n = 1;
  for (size_t d = 1; d < shape.size(); ++d) {
    if (!shape[d].is_constant()) return std::nullopt;
    n *= shape[d].constant();
  }
  return n;
}

}  // namespace

std::optional<std::string> limit_violation(const Kernel& k) {
  namespace lim = trn::limits;
  // The instruction first (its operand names the rule broken), then the tiles.
  std::optional<std::string> found;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (found || op.cls != OpClass::Matmul) continue;
      auto check = [&](const char* name, int64_t limit) {
        const Operand* o = operand(op, name);
        if (found || !o || o->kind != Operand::Kind::Tile) return;
        auto f = free_size(o->access);
        if (f && *f > limit)
          found = fmt::format("{} free size {} of {} exceeds {}", name, *f, op.api, limit);
      };
      if (op.api == "nisa.nc_matmul" && symbol_of(op, "is_transpose") != "True") {
        check("stationary", lim::gemm_stationary_fmax);
        check("moving", lim::gemm_moving_fmax);
      }
    }
  });
  if (found) return found;
  for (const auto& t : k.tensors) {
    if (!t.on_chip() || t.role == TensorRole::View || static_cast<size_t>(t.partition_dim) >= t.shape.size()) continue;
    const IExpr& p = t.shape[static_cast<size_t>(t.partition_dim)];
    if (p.is_constant() && p.constant() > lim::pmax)
      return fmt::format("tile `{}` spans {} partitions, more than {}", t.name, p.constant(), lim::pmax);
    if (t.memory != Memory::Psum) continue;
    int64_t bytes = itemsize_of(t.dtype);
    bool known = true;
    for (size_t d = static_cast<size_t>(t.partition_dim) + 1; d < t.shape.size(); ++d) {
      known = known && t.shape[d].is_constant();
      if (known) bytes *= t.shape[d].constant();
    }
    if (known && bytes > lim::psum_bank_bytes)
      return fmt::format("PSUM tile `{}` needs {} bytes per partition, more than the {} of a PSUM bank", t.name, bytes,
                         lim::psum_bank_bytes);
  }
  return std::nullopt;
}

}  // namespace loopnest
