// A newer-API nisa.dma_copy between accesses of different shapes (equal element counts, paired in
// row-major order; tests/unit/nkilib/dma_pairing_test.cpp) lifts as a DMA of one tile shape: the
// side the interpreter regroups is flattened run by run into the other's dims (lift_call.cpp,
// pair_dma_sides). What does not flatten so is refused by name, never lifted dim for dim.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/analysis.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kHalvesArgs = arrays({{128, 2048}, {64, 2048}});

// (dst tile shape, src tile shape) of each DMA of the form.
std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> dma_shapes(loopnest::Kernel& k) {
  auto constants = [](const std::vector<loopnest::IExpr>& shape) {
    std::vector<int64_t> out;
    for (const auto& e : shape) out.push_back(e.is_constant() ? e.constant() : -1);
    return out;
  };
  loopnest::Analysis an(k);
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> out;
  for (const auto& r : an.ops) {
    const loopnest::Op& op = r.op();
    if (op.engine != loopnest::Engine::Dma || !op.dst) continue;
    for (const auto* a : loopnest::reads(op)) out.push_back({constants(op.dst->tile_shape()), constants(a->tile_shape())});
  }
  return out;
}

TEST(DmaPairingLift, A3DPatternIntoA2DTileLiftsAsOneShape) {
  const std::string path = source_dir() + "/tests/kernels/halves_gathered_ap_api.py";
  const std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, kHalvesArgs);
  auto shapes = dma_shapes(k);
  ASSERT_EQ(shapes.size(), 5u);  // three gathers in, two results out
  for (const auto& [dst, src] : shapes) {
    EXPECT_EQ(dst, (std::vector<int64_t>{128, 256}));
    EXPECT_EQ(src, dst);
  }
  // Printed from the form (the flattened subscripts), the kernel lifts back to the same form, and
  // every site keeps the result.
  loopnest::EmitOptions all;
  all.regenerate = true;
  std::string printed = loopnest::emit_checked(k, kHalvesArgs, all);
  EXPECT_NE(printed.find("nl.arange(128)[:, None] % 64"), std::string::npos) << printed;
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, text, kHalvesArgs), 0u);
}

TEST(DmaPairingLift, APairingAcrossDimsIsRefusedByName) {
  const std::string text = R"(import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((8, 24), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((8, 24), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.permute(1, 0, 2))
    nisa.dma_copy(dst=out, src=t)
    return out
)";
  try {
    loopnest::lift_source("pairs.py", text, arrays({{4, 6, 8}}));
    FAIL() << "lifted";
  } catch (const loopnest::LiftError& e) {
    EXPECT_EQ(e.diag.loc.line, 10) << e.render();
    EXPECT_NE(e.render().find("src dims (6, 4, 8) do not flatten, run by run, into the dst dims (8, 24)"), std::string::npos)
        << e.render();
  }
}

}  // namespace
