// nisa.dma_copy between accesses of equal element counts and different shapes (newer API,
// nki-language.md 12.2: "element counts must match"): element i of dst in row-major order takes
// element i of src in row-major order, whichever side is regrouped (isa_engines.cpp,
// row_major_pair). Each kernel's output is compared element by element with the numpy expression
// of that order (the interpreter's numpy module, as tensor_views_test.cpp does); the legacy API
// keeps its rule that the shapes match, and different counts stay a Value error.
#include <fmt/format.h>

#include "kernel_harness.h"
#include "numpy_reads.h"
#include "nki/diagnostics.h"
#include "tensor/ops.h"

namespace nki::lib {
namespace {

using testing::expect_kernel_reads_as_numpy;
using testing::Harness;
using testing::iota_468;

struct PairCase {
  const char* body;   // kernel lines on the HBM input `x` (4, 6, 8); they return `out`
  const char* numpy;  // what `out` holds, from `a` (the same values as a numpy array)
};

const PairCase kCases[] = {
    // HBM -> SBUF: a 3-D access pattern into a 2-D tile (the outer two counts make the partitions).
    {R"(t = nl.ndarray((12, 16), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[96, 2], [8, 6], [1, 16]], offset=0))
    out = nl.ndarray((12, 16), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t))",
     "np.stack([a.reshape(192)[96 * h + 8 * r:96 * h + 8 * r + 16] for h in range(2) for r in range(6)])"},
    // A permuted HBM view (6, 4, 8) into a (24, 8) tile, then the tile out to a (6, 4, 8) output:
    // the store regroups its HBM side.
    {R"(t = nl.ndarray((24, 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.permute(1, 0, 2))
    out = nl.ndarray((6, 4, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t))",
     "np.transpose(a, (1, 0, 2))"},
    // HBM -> HBM: a strided source whose sizes do not split into the destination's (6, 32), paired
    // through the contiguous destination viewed in the source's shape.
    {R"(out = nl.ndarray((8, 24), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x.permute(1, 0, 2)))",
     "np.transpose(a, (1, 0, 2)).reshape(8, 24)"},
    // SBUF -> HBM view of another shape: a (16, 12) tile into the rows of a (4, 48) flat view.
    {R"(t = nl.ndarray((16, 12), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.flatten_dims().reshape((16, 12)))
    out = nl.ndarray((4, 6, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out.flatten_dims(1, 2), src=t))",
     "a"},
};

std::string module_text(const std::string& body, const std::string& numpy, bool legacy = false) {
  const char* imports = legacy ? "import neuronxcc.nki as nki\nimport neuronxcc.nki.isa as nisa\nimport neuronxcc.nki.language as nl\n"
                               : "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n";
  return fmt::format(R"(import numpy as np
{}

def ref(a):
    return np.ascontiguousarray({})


@nki.jit
def kernel(x):
    {}
    return out
)", imports, numpy, body);
}

TEST(DmaPairing, ElementsPairInRowMajorOrderOfEachSide) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.body);
    expect_kernel_reads_as_numpy(module_text(c.body, c.numpy), false);
  }
}

// What is really invalid stays refused, with the rule that applies: different element counts (a
// Value error), the legacy API's shapes (8.4: a tile to a tile of its shape), and two orders that
// no view without a copy pairs (accelopt's limit, Unsupported, naming the way out).
TEST(DmaPairing, WhatDoesNotPairIsRefused) {
  struct Bad {
    const char* body;
    bool legacy;
    ErrorKind kind;
    const char* message;
  };
  const Bad bad[] = {
      {R"(out = nl.ndarray((8, 25), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x))",
       false, ErrorKind::Value, "dst(8, 25) and src(4, 6, 8) of nisa.dma_copy hold different element counts (200 and 192)"},
      {R"(out = nl.ndarray((8, 24), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x))",
       true, ErrorKind::Value, "shapes of dst(8, 24) and src(4, 6, 8) of nisa.dma_copy differ"},
      {R"(out = nl.ndarray((24, 8), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out.permute(1, 0), src=x.permute(1, 0, 2)))",
       false, ErrorKind::Unsupported, "neither access can be viewed in the other's shape without a copy"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.body);
    Harness h;
    auto mod = h.load_text("pairs.py", module_text(b.body, "a", b.legacy));
    try {
      h.run_module(*mod, {iota_468()});
      ADD_FAILURE() << "ran";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, b.kind) << render(e.diag);
      EXPECT_NE(render(e.diag).find(b.message), std::string::npos) << render(e.diag);
    }
  }
}

}  // namespace
}  // namespace nki::lib
