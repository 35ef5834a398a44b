// Kernels from tests/kernels/ run with numerics and compared with the same math done here.
#include <cmath>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

using testing::at;
using testing::expect_all;
using testing::Harness;
using testing::test_input;

TEST(KernelNumerics, AddWithSlices) {
  Harness h;
  auto a = test_input({256, 512}, 1), b = test_input({256, 512}, 2);
  auto r = h.run("add_slices.py", {a, b});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_FALSE(r.returned_tuple);
  EXPECT_EQ(r.outputs[0].shape(), (tensor::Shape{256, 512}));
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return double(float(at(a, i, j) + at(b, i, j))); });
  EXPECT_EQ(r.instructions, 8u);  // two tiles x (load, load, add, store)
}

TEST(KernelNumerics, MaskedRaggedTileWithBlockDims) {
  Harness h;
  auto x = test_input({200, 64}, 3);
  auto r = h.run("masked_blocks.py", {x});
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return 0.5 * at(x, i, j) + 1.0; });
}

TEST(KernelNumerics, SiluChain) {
  Harness h;
  auto x = test_input({128, 256}, 4);
  auto r = h.run("silu.py", {x});
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) {
    double v = at(x, i, j);
    return v / (1 + std::exp(-v));
  });
}

TEST(KernelNumerics, SoftmaxRowsWithLoopReduce) {
  Harness h;
  auto x = test_input({128, 1024}, 5);
  auto r = h.run("softmax_rows.py", {x});
  std::vector<double> mx(128, -1e30), sum(128, 0);
  for (int64_t i = 0; i < 128; ++i) {
    for (int64_t j = 0; j < 1024; ++j) mx[i] = std::max(mx[i], at(x, i, j));
    for (int64_t j = 0; j < 1024; ++j) sum[i] += std::exp(at(x, i, j) - mx[i]);
  }
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return std::exp(at(x, i, j) - mx[i]) / sum[i]; });
}

TEST(KernelNumerics, MatmulTransposeAndPsumAccumulation) {
  Harness h;
  auto a = test_input({128, 256}, 6), b = test_input({256, 512}, 7);
  auto r = h.run("matmul.py", {a, b});
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_TRUE(r.returned_tuple);
  std::vector<double> ref(128 * 512, 0.0), bv(256 * 512);
  for (int64_t k = 0; k < 256; ++k)
    for (int64_t j = 0; j < 512; ++j) bv[size_t(k * 512 + j)] = at(b, k, j);
  for (int64_t i = 0; i < 128; ++i)
    for (int64_t k = 0; k < 256; ++k) {
      double aik = at(a, i, k);
      for (int64_t j = 0; j < 512; ++j) ref[size_t(i * 512 + j)] += aik * bv[size_t(k * 512 + j)];
    }
  auto want = [&](int64_t i, int64_t j) { return ref[size_t(i * 512 + j)]; };
  expect_all(r.outputs[0], want, 1e-4);
  expect_all(r.outputs[1], want, 1e-4);
}

TEST(KernelNumerics, ScanChainedThroughInitialView) {
  Harness h;
  auto a = test_input({128, 64}, 8), b = test_input({128, 64}, 9);
  auto r = h.run("scan.py", {a, b});
  std::vector<std::vector<double>> want(128, std::vector<double>(64));
  for (int64_t p = 0; p < 128; ++p) {
    double acc = 0;
    for (int64_t i = 0; i < 64; ++i) want[p][i] = acc = at(a, p, i) * acc + at(b, p, i);
  }
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return want[i][j]; }, 1e-4);
}

TEST(KernelNumerics, NewerApiDestinationFirst) {
  Harness h;
  auto a = test_input({128, 128}, 10), b = test_input({128, 256}, 11);
  auto r = h.run("newer_api.py", {a, b});
  std::vector<double> ref(128 * 256, 0.0);
  for (int64_t k = 0; k < 128; ++k)
    for (int64_t i = 0; i < 128; ++i) {
      double aki = at(a, k, i);
      for (int64_t j = 0; j < 256; ++j) ref[size_t(i * 256 + j)] += aki * at(b, k, j);
    }
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return ref[size_t(i * 256 + j)] + at(b, i, j); }, 1e-4);
}

TEST(KernelNumerics, MgridBroadcastAndInPlaceAccumulation) {
  Harness h;
  auto x = test_input({128, 64}, 12);
  auto g = tensor::Array::from_values({64}, tensor::DType::Float32, [] {
    std::vector<double> v(64);
    for (int i = 0; i < 64; ++i) v[size_t(i)] = 0.25 * i - 3;
    return v;
  }());
  auto r = h.run("mgrid_broadcast.py", {x, g});
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return 2 * at(x, i, j) * (0.25 * double(j) - 3); });
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// Assignment semantics (and so instruction counts) must not depend on whether a trace is taken.
TEST(KernelNumerics, InstructionCountIsTheSameWithAndWithoutATrace) {
  Harness h;
  auto a = testing::test_input({128, 256}, 6), b = testing::test_input({256, 512}, 7);
  auto plain = h.run("matmul.py", {a, b});
  trn::TraceBuffer buffer;
  auto traced = h.run("matmul.py", {a, b}, true, &buffer);
  EXPECT_EQ(plain.instructions, traced.instructions);
  uint64_t records = 0;
  for (auto& r : buffer.records) records += r.kind == trn::RecordKind::Instruction;
  EXPECT_EQ(records, traced.instructions);
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// Quasi-affine indices on SBUF: a scatter through (f // 64, f % 64) into a 3-D tile, a masked
// read back (f % 3 != 0 tested element by element), and nisa.iota of a digit.
TEST(KernelNumerics, QuasiAffineScatterMaskAndIota) {
  Harness h;
  auto mod = h.load_text("quasi.py", R"py(
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def kernel(x):
    out = nl.ndarray((128, 256), dtype=np.float32, buffer=nl.shared_hbm)
    ids = nl.ndarray((128, 256), dtype=np.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(256)[None, :]
    t = nl.ndarray((128, 4, 64), dtype=np.float32, buffer=nl.sbuf)
    t[i_p, i_f // 64, i_f % 64] = nl.load(x)
    u = nl.zeros((128, 256), dtype=np.float32, buffer=nl.sbuf)
    u[i_p, i_f] = nl.multiply(t[i_p, i_f // 64, i_f % 64], 3.0, mask=(i_f % 3 != 0))
    nl.store(out, value=u)
    nl.store(ids, value=nisa.iota(i_f % 64 + 64 * (i_p // 32), dtype=np.float32))
    return out, ids
)py");
  auto x = test_input({128, 256}, 21);
  auto r = h.run_module(*mod, {x});
  ASSERT_EQ(r.outputs.size(), 2u);
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return j % 3 != 0 ? 3 * at(x, i, j) : 0.0; });
  expect_all(r.outputs[1], [&](int64_t i, int64_t j) { return double(j % 64 + 64 * (i / 32)); });
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// nisa.dma_transpose of 2-D and 3-D tensors (default and explicit axes), and the reshape of a
// whole SBUF tile that keeps its partitions (newer API views).
TEST(KernelNumerics, DmaTransposeAxesAndOnChipReshape) {
  Harness h;
  auto mod = h.load_text("transpose.py", R"py(
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def kernel(x, y):
    out2 = nl.ndarray((64, 128), dtype=np.float32, buffer=nl.shared_hbm)
    out3 = nl.ndarray((16, 8, 4), dtype=np.float32, buffer=nl.shared_hbm)
    t = nisa.dma_transpose(x)
    nl.store(out2, value=t)
    u = nisa.dma_transpose(y, axes=[2, 1, 0])
    flat = nl.ndarray((16, 32), dtype=np.float32, buffer=nl.sbuf)
    flat[...] = u.reshape((16, 32))
    nl.store(out3, value=flat.reshape((16, 8, 4)))
    return out2, out3
)py");
  auto x = test_input({128, 64}, 31);
  auto y = tensor::Array::from_values({4, 8, 16}, tensor::DType::Float32, [] {
    std::vector<double> v(512);
    for (int i = 0; i < 512; ++i) v[size_t(i)] = i;
    return v;
  }());
  auto r = h.run_module(*mod, {x, y});
  ASSERT_EQ(r.outputs.size(), 2u);
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) { return at(x, j, i); });
  auto o3 = r.outputs[1];
  for (int64_t c = 0; c < 16; ++c)
    for (int64_t b = 0; b < 8; ++b)
      for (int64_t a = 0; a < 4; ++a) ASSERT_EQ(o3.get({c, b, a}), double(a * 128 + b * 16 + c));
}

}  // namespace
}  // namespace nki::lib

namespace nki::lib {
namespace {

// 32-bit integer add / subtract / multiply run on GpSimd's integer lanes: exact above 2^24, where
// the fp32 datapath rounds. A gather index computed as a row base (iota) plus a label must name
// the element it means (an outside author's cross-entropy ladder picked a neighbour).
TEST(KernelNumerics, Int32AddSubtractMultiplyAreExactAboveTwoToThe24) {
  Harness h;
  auto mod = h.load_text("int_index.py", R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lab):
    out = nl.ndarray((128, 3), dtype=nl.int32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    l = nl.load(lab)
    base = nisa.iota((3968 + i_p) * 8192, dtype=nl.int32)
    s = nisa.tensor_tensor(base, l, np.add, engine=nisa.gpsimd_engine)
    d = nl.subtract(base, l)
    m = nisa.tensor_scalar(l, np.multiply, 1000003, dtype=nl.int32)
    nl.store(out[:, 0:1], value=s)
    nl.store(out[:, 1:2], value=d)
    nl.store(out[:, 2:3], value=m)
    return out
)");
  std::vector<double> labels(128);
  for (int64_t i = 0; i < 128; ++i) labels[size_t(i)] = double(3 * i + 1);
  auto lab = tensor::Array::from_values({128, 1}, tensor::DType::Int32, labels);
  auto r = h.run_module(*mod, {lab});
  ASSERT_EQ(r.outputs.size(), 1u);
  for (int64_t i = 0; i < 128; ++i) {
    const int64_t base = (3968 + i) * 8192, l = 3 * i + 1;
    EXPECT_EQ(int64_t(at(r.outputs[0], i, 0)), base + l) << i;
    EXPECT_EQ(int64_t(at(r.outputs[0], i, 1)), base - l) << i;
    EXPECT_EQ(int64_t(at(r.outputs[0], i, 2)), l * 1000003) << i;
  }
}

// nisa.tensor_scalar_reduce traced as one instruction (session 20) computes what the
// tensor_scalar + tensor_reduce it used to be traced as computed, bit for bit: the result in its
// dtype, and reduce_res the fp32 reduction of that result (an fp32 result, and a bf16 one whose
// rounded values are reduced), for an add and a max reduction.
TEST(KernelNumerics, TensorScalarReduceComputesWhatTheExplicitPairComputes) {
  const char* fused = R"(
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def kernel(x):
    y_out = nl.ndarray((128, 4, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    r_out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    h = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    y0 = nisa.tensor_scalar_reduce(data=t[:, 0, :], op0=np.multiply, operand0=0.37, reduce_op=np.add, reduce_res=s)
    y1 = nisa.tensor_scalar_reduce(data=t[:, 1, :], op0=np.add, operand0=0.11, reduce_op=np.max, reduce_res=m)
    y2 = nisa.tensor_scalar_reduce(data=t[:, 2, :], op0=np.multiply, operand0=1.37, reduce_op=np.add, reduce_res=b,
                                   dtype=nl.bfloat16)
    y3 = nisa.tensor_scalar_reduce(data=t[:, 3, :], op0=np.subtract, operand0=0.5, reduce_op=np.max, reduce_res=h[:, 0],
                                   dtype=nl.bfloat16)
    nl.store(y_out[:, 0, :], value=y0)
    nl.store(y_out[:, 1, :], value=y1)
    nl.store(y_out[:, 2, :], value=y2)
    nl.store(y_out[:, 3, :], value=y3)
    nl.store(r_out[:, 0:1], value=s)
    nl.store(r_out[:, 1:2], value=m)
    nl.store(r_out[:, 2:3], value=b)
    nl.store(r_out[:, 3:4], value=h)
    return y_out, r_out
)";
  const char* explicit_pair = R"(
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def kernel(x):
    y_out = nl.ndarray((128, 4, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    r_out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    y0 = nisa.tensor_scalar(t[:, 0, :], np.multiply, 0.37)
    s = nisa.tensor_reduce(np.add, y0, axis=(1,), keepdims=True, dtype=nl.float32)
    y1 = nisa.tensor_scalar(t[:, 1, :], np.add, 0.11)
    m = nisa.tensor_reduce(np.max, y1, axis=(1,), keepdims=True, dtype=nl.float32)
    y2 = nisa.tensor_scalar(t[:, 2, :], np.multiply, 1.37, dtype=nl.bfloat16)
    b = nisa.tensor_reduce(np.add, y2, axis=(1,), keepdims=True, dtype=nl.float32)
    y3 = nisa.tensor_scalar(t[:, 3, :], np.subtract, 0.5, dtype=nl.bfloat16)
    h = nisa.tensor_reduce(np.max, y3, axis=(1,), keepdims=True, dtype=nl.float32)
    nl.store(y_out[:, 0, :], value=y0)
    nl.store(y_out[:, 1, :], value=y1)
    nl.store(y_out[:, 2, :], value=y2)
    nl.store(y_out[:, 3, :], value=y3)
    nl.store(r_out[:, 0:1], value=s)
    nl.store(r_out[:, 1:2], value=m)
    nl.store(r_out[:, 2:3], value=b)
    nl.store(r_out[:, 3:4], value=h)
    return y_out, r_out
)";
  auto x = test_input({128, 4, 512}, 7);
  Harness h1, h2;
  auto a = h1.run_module(*h1.load_text("fused.py", fused), {x});
  auto b = h2.run_module(*h2.load_text("explicit.py", explicit_pair), {x});
  ASSERT_EQ(a.outputs.size(), 2u);
  ASSERT_EQ(b.outputs.size(), 2u);
  const auto fa = testing::flattened(a.outputs), fb = testing::flattened(b.outputs);
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(fa[k].size(), fb[k].size());
    for (size_t i = 0; i < fa[k].size(); ++i) ASSERT_EQ(fa[k][i], fb[k][i]) << "output " << k << " element " << i;
  }
  EXPECT_LT(a.instructions, b.instructions);  // four tensor_reduce fewer
}

}  // namespace
}  // namespace nki::lib
