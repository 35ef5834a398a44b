// reorder_reuse (src/loopnest/reorder_reuse.cpp) on a newer-API kernel whose tiles are buffers
// declared once up front and written in place (`nisa.dma_copy(dst=w2t[:, t, :], ...)`): a column
// block's weight slice is loaded into the same buffer each block and read by the row loop inside.
// The form sees that write, so no reorder that would make a row read another block's slice (or
// two jammed rows or blocks write one buffer) is offered, and every site the form does offer keeps
// the result. The source-level reorder_reuse, which saw only the names a statement binds, offered
// such rewrites on a held-out swiglu (BuiltinMatmul.AKernelThatLiftsGetsOnlyTheFormsReorderReuse).
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

// 2 blocks of 2 x 128 rows, K = 128, 256 hidden, 1024 output columns in 2 blocks of 512.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 2, 128, 128}, {128, 256}, {2, 128, 1024}});

TEST(ReorderReuseBuffers, AWeightSliceWrittenInPlaceKeepsTheRowLoopInsideItsColumnBlock) {
  const std::string path = source_dir() + "/tests/kernels/shared_weight_buffers_api.py";
  const std::string text = read(path);
  // `for oc: w2t <- w2 slice; for r: ps += hT x w2t; ...`: the row body's matmul reads what the
  // block's load wrote, so nothing before the store can leave `for oc` (no site). `for a: ...; for
  // oc: w2t <- ...; for r: ...`: the block loop's body accumulates (the hidden tile's matmul into
  // `hp`) and runs again per column block, so it is refused as well.
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, kArgs)))
    EXPECT_NE(s.transform, "reorder_reuse") << s.key();
  EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, text, kArgs), 1u);
}

}  // namespace
