// The two library fixes, numerically: `+=` of Tensor Engine transposes into PSUM folds into
// PE accumulation with the right values, and nl.zeros(lazy_initialization=True) still reads as
// zeros. The trace side is in tests/golden/trace/{transpose_accumulate,zeros_fill}.trace.
#include "kernel_harness.h"
#include "support/test_paths.h"

namespace nki::lib {
namespace {

using testing::at;
using testing::expect_all;
using testing::Harness;
using testing::test_input;

std::string golden_kernel(const std::string& name) {
  return testing::read_file(std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/trace/" + name);
}

TEST(PeAccumulate, TransposesAddedIntoPsumAccumulate) {
  Harness h;
  auto mod = h.load_text("transpose_accumulate.py", golden_kernel("transpose_accumulate.py"));
  auto a = test_input({128, 128}, 11);
  auto r = h.run_module(*mod, {a});
  ASSERT_EQ(r.outputs.size(), 1u);
  // Three Tensor Engine transposes accumulated in PSUM plus one Vector Engine transpose.
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return 4.0 * at(a, j, i); }, 1e-4);
}

TEST(PeAccumulate, LazyZerosAreZerosWithoutAMemset) {
  Harness h;
  auto mod = h.load_text("zeros_fill.py", golden_kernel("zeros_fill.py"));
  auto a = test_input({128, 128}, 12), b = test_input({128, 512}, 13);
  trn::TraceBuffer buffer;
  auto r = h.run_module(*mod, {a, b}, true, &buffer);
  ASSERT_EQ(r.outputs.size(), 1u);
  expect_all(
      r.outputs[0],
      [&](int64_t i, int64_t j) {
        double s = 0;
        for (int64_t k = 0; k < 128; ++k) s += at(a, k, i) * at(b, k, j);
        return s;
      },
      1e-4);
  // Memsets: 3 SBUF blocks + 2 PSUM blocks + 1 plain PSUM tile; none for the lazy tensor.
  int memsets = 0;
  for (const auto& rec : buffer.records) {
    if (rec.kind != trn::RecordKind::Instruction || rec.inst.opcode != trn::Opcode::Memset) continue;
    ++memsets;
    ASSERT_EQ(rec.inst.outputs.size(), 1u);
    EXPECT_LE(rec.inst.outputs[0].bytes() / rec.inst.outputs[0].partitions, 2048u) << "operand spans tiles";
  }
  EXPECT_EQ(memsets, 6);
}

}  // namespace
}  // namespace nki::lib
