// Indirect (dynamic) DMA: the gather/scatter kernels of tests/kernels/ run with numerics and are
// compared with numpy's own advanced indexing (np.take, fancy assignment, np.add.at) in a real
// python3 + numpy; the trace of a gather reads its index tile and moves one row per index.
#include <gtest/gtest.h>

#include "kernel_harness.h"
#include "trn/trace.h"
#include "unit/tensor/numpy_oracle.h"

namespace nki::lib {
namespace {

using testing::Harness;
using testing::test_input;

// Row labels with repeats, in [0, rows): label n = (n * mult + add) % rows.
tensor::Array labels(int64_t n, int64_t rows, int64_t mult, int64_t add) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double((i * mult + add) % rows);
  return tensor::Array::from_values({n, 1}, tensor::DType::Int32, v);
}

// numpy's result of `expr` (over the named inputs), or a skip when python3-numpy is missing.
std::optional<tensor::Array> numpy_result(const std::vector<std::pair<std::string, tensor::Array>>& inputs,
                                          const std::string& statements, const std::string& expr) {
  if (tensor::testing::python_with_numpy().empty()) return std::nullopt;
  tensor::testing::NumpyOracle oracle;
  for (const auto& [name, a] : inputs) oracle.prelude(name + " = " + oracle.input(a));
  oracle.prelude(statements);
  oracle.expect(expr);
  auto r = oracle.run();
  EXPECT_TRUE(r[0].value.has_value()) << r[0].error;
  return r[0].value;
}

void expect_equal(const tensor::Array& got, const tensor::Array& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.shape()[0]; ++i)
    for (int64_t j = 0; j < got.shape()[1]; ++j)
      ASSERT_EQ(got.get({i, j}), want.get({i, j})) << "at (" << i << ", " << j << ")";
}

TEST(IndirectDma, GatherIsNpTake) {
  Harness h;
  auto table = test_input({300, 64}, 1);
  auto ids = labels(256, 300, 37, 11);
  auto r = h.run("gather_rows.py", {table, ids});
  auto want = numpy_result({{"table", table}, {"ids", ids}}, "", "np.take(table, ids[:, 0], axis=0)");
  if (!want) GTEST_SKIP() << "python3 with numpy is not available";
  expect_equal(r.outputs[0], *want);
}

TEST(IndirectDma, NewerApiVectorOffsetGathersLikeTheLegacyForm) {
  Harness h;
  auto table = test_input({300, 64}, 1);
  auto ids = labels(256, 300, 37, 11);
  auto r = h.run("gather_rows_ap.py", {table, ids});
  auto want = numpy_result({{"table", table}, {"ids", ids}}, "", "table[ids[:, 0]]");
  if (!want) GTEST_SKIP() << "python3 with numpy is not available";
  expect_equal(r.outputs[0], *want);
}

TEST(IndirectDma, ScatterIsFancyAssignmentLastRowWins) {
  Harness h;
  auto base = test_input({256, 32}, 2), updates = test_input({256, 32}, 3);
  auto ids = labels(256, 200, 5, 3);  // repeats: 256 labels over 200 rows
  auto r = h.run("scatter_rows.py", {base, updates, ids});
  auto want = numpy_result({{"base", base}, {"updates", updates}, {"ids", ids}},
                           "out = base.copy()\nout[ids[:, 0]] = updates", "out");
  if (!want) GTEST_SKIP() << "python3 with numpy is not available";
  expect_equal(r.outputs[0], *want);
}

TEST(IndirectDma, AtomicAddIsNpAddAt) {
  Harness h;
  auto base = test_input({256, 32}, 4), updates = test_input({256, 32}, 5);
  auto ids = labels(256, 100, 3, 1);  // every row of the first 100 gets two or three updates
  auto r = h.run("scatter_add_rows.py", {base, updates, ids});
  auto want = numpy_result({{"base", base}, {"updates", updates}, {"ids", ids}},
                           "out = base.copy()\nnp.add.at(out, ids[:, 0], updates)", "out");
  if (!want) GTEST_SKIP() << "python3 with numpy is not available";
  ASSERT_EQ(r.outputs[0].shape(), want->shape());
  for (int64_t i = 0; i < 256; ++i)
    for (int64_t j = 0; j < 32; ++j) EXPECT_NEAR(r.outputs[0].get({i, j}), want->get({i, j}), 1e-5);
}

TEST(IndirectDma, IotaIndicesThroughDmaCopy) {
  Harness h;
  auto table = test_input({400, 16}, 6);
  auto r = h.run("gather_rows_isa.py", {table});
  auto want = numpy_result({{"table", table}}, "", "table[3 * np.arange(128) + 1]");
  if (!want) GTEST_SKIP() << "python3 with numpy is not available";
  expect_equal(r.outputs[0], *want);
}

TEST(IndirectDma, OutOfBoundsIndexRaisesUnlessSkipped) {
  const std::string kernel = R"(
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(table, ids):
    out = nl.ndarray((128, 8), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    idx = nl.load(ids[i_p, 0])
    rows = nl.zeros((128, 8), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=table[idx[i_p, 0], nl.arange(8)[None, :]], oob_mode=MODE)
    nl.store(out[i_p, nl.arange(8)[None, :]], value=rows)
    return out
)";
  auto table = test_input({100, 8}, 7);
  auto ids = labels(128, 128, 1, 0);  // 0..127: rows 100..127 are outside the table
  auto with_mode = [&](const std::string& mode) {
    std::string text = kernel;
    text.replace(text.find("MODE"), 4, mode);
    return text;
  };
  {
    Harness h;
    auto mod = h.load_text("oob_error.py", with_mode("nisa.oob_mode.error"));
    try {
      h.run_module(*mod, {table, ids});
      FAIL() << "an out-of-bounds indirect index must raise";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, ErrorKind::Index);
      EXPECT_NE(e.diag.message.find("indirect index 100 (partition 100"), std::string::npos) << e.diag.message;
    }
  }
  Harness h;
  auto mod = h.load_text("oob_skip.py", with_mode("nisa.oob_mode.skip"));
  auto r = h.run_module(*mod, {table, ids});
  for (int64_t p = 0; p < 128; ++p)
    for (int64_t j = 0; j < 8; ++j)
      ASSERT_EQ(r.outputs[0].get({p, j}), p < 100 ? table.get({p, j}) : 0.0) << p;  // skipped rows keep the zeros
}

TEST(IndirectDma, TraceReadsTheIndexTileAndMovesOneRowPerIndex) {
  Harness h;
  trn::TraceBuffer trace;
  auto table = test_input({300, 512}, 1);
  auto ids = labels(128, 300, 37, 11);
  h.run("gather_rows.py", {table, ids}, true, &trace);
  std::vector<const trn::Record*> dmas;
  for (const auto& rec : trace.records)
    if (rec.kind == trn::RecordKind::Instruction && rec.inst.opcode == trn::Opcode::DmaLoad) dmas.push_back(&rec);
  ASSERT_EQ(dmas.size(), 2u);  // the index load, the gather
  const trn::InstructionInfo& index_load = dmas[0]->inst;
  const trn::InstructionInfo& gather = dmas[1]->inst;
  ASSERT_EQ(gather.inputs.size(), 2u);
  const trn::Operand& rows = gather.inputs[0];
  EXPECT_EQ(rows.buffer, trn::BufferKind::Hbm);
  EXPECT_TRUE(rows.indirect);
  EXPECT_EQ(rows.partitions, 128);
  EXPECT_EQ(rows.free_elements, 512u);
  EXPECT_EQ(rows.descriptors, 128u);  // one contiguous 2 KiB row per index
  // The second input is the index tile the first load wrote: the DMA waits for it.
  const trn::Operand& index = gather.inputs[1];
  EXPECT_EQ(index.buffer, trn::BufferKind::Sbuf);
  EXPECT_EQ(index.tensor_id, index_load.outputs[0].tensor_id);
  EXPECT_EQ(index.partitions, 128);
  EXPECT_EQ(index.free_elements, 1u);
  EXPECT_FALSE(index_load.inputs[0].indirect);
}

}  // namespace
}  // namespace nki::lib
