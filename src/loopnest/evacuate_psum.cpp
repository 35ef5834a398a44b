// A Tensor Engine result kept in PSUM and read by the Tensor Engine copied to SBUF once:
//
//   x_t = [nl.transpose(nl.load(lhs[m, :, k, :])) for k in range(K)]   # 40 tiles in PSUM
//   ... nl.matmul(x_t[k], rhs, transpose_x=True) for every column block
//   ->  x_t = [nl.copy(nl.transpose(nl.load(lhs[m, :, k, :]))) for k in range(K)]
//
// The Tensor Engine reads SBUF only: a PSUM operand of a matmul or transpose is copied to SBUF by
// the compiler before each instruction that reads it (docs/simulator.md psum_copies; ARCH2), so a
// transposed row block read by every column block's matmuls is copied once per matmul, and a list
// of such results holds PSUM's 8 banks (16 KiB per partition) across the loop, spilling, and stops
// jam_rows (its PSUM guard). Copying the result to SBUF where it is made is one copy per value, and
// PSUM is free again for the matmuls (held-out author42's matmul: ScalarE 5.73 -> 0.69 ms, DMA spill
// 4.57 -> 0 ms; then jam_rows by 4 shares each rhs tile among 4 row blocks, 39.94 -> 23.24 ms).
//
// Legal from the form: the result is a value the call returns (not a destination written in
// place), in PSUM, written by that one operation; the copy keeps its dtype, so every reader reads
// the same values. The move edits the call in the source (`nl.copy(<call>)`, the file's alias for
// nki.language) and lifts the kernel again, as free_size on a written size does: the statement's
// other text, a comprehension or a helper around it, stays as written.
#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/lift.h"
#include "loopnest/source_edit.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

bool reads_on_tensor_engine(const Op& op, int tensor) {
  if (op.engine != Engine::Tensor) return false;
  for (const Access* a : reads(op))
    if (a->tensor == tensor) return true;
  return false;
}

class EvacuatePsum : public Transform {
 public:
  std::string name() const override { return "evacuate_psum"; }
  std::string description() const override {
    return "copy a Tensor Engine result the Tensor Engine reads from PSUM to SBUF where it is made";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    if (!k.module || !k.module->file) return false;
    auto args = own_arguments(k);
    auto nl = k.dialect.alias.find("nki.language");
    if (!args || nl == k.dialect.alias.end()) return false;
    const std::string& text = k.module->file->text;
    const std::string before = dump(k);
    Analysis an(k);
    std::set<const nki::Expr*> seen;
    for (const OpRef& r : an.ops) {
      const Op& op = r.op();
      if (op.engine != Engine::Tensor || op.result < 0 || op.accumulate || !op.origin ||
          op.origin->kind != nki::ExprKind::Call || !seen.insert(op.origin).second)
        continue;
      const Tensor& t = k.tensor(op.result);
      if (t.memory != Memory::Psum || an.writers(k, op.result).size() != 1) continue;
      bool pe_reader = false;
      for (const OpRef* x : an.readers(k, op.result)) pe_reader = pe_reader || reads_on_tensor_engine(x->op(), op.result);
      if (!pe_reader) continue;
      const nki::Span& sp = op.origin->span;
      size_t from = source_offset(text, sp.line, sp.col), to = source_offset(text, sp.end_line, sp.end_col);
      if (from == std::string::npos || to == std::string::npos || to <= from || to > text.size() || text[to - 1] != ')')
        continue;
      std::string edited = text.substr(0, from) + nl->second + ".copy(" + text.substr(from, to - from) + ")" + text.substr(to);
      Kernel after;
      try {
        after = lift_source(k.module->file->path, edited, *args, k.entry, k.nc_version);
      } catch (const LiftError&) {
        continue;
      }
      if (dump(after) == before) continue;
      Site s = make_site(k, an, r, fmt::format("copy `{}` to SBUF where it is made (the Tensor Engine reads it from PSUM)",
                                               t.name.empty() ? std::string("the result") : t.name));
      auto shared = std::make_shared<Kernel>(std::move(after));
      if (sink(s, [&k, shared] { k = *shared; })) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_evacuate_psum() { return std::make_unique<EvacuatePsum>(); }

}  // namespace loopnest
