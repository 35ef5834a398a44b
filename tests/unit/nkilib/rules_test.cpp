// Hardware rules and user mistakes: each produces its diagnostic (kind + message), never a crash.
#include "kernel_harness.h"
#include "trn/arch_config.h"
#include "trn/simulator.h"

namespace nki::lib {
namespace {

using testing::Harness;
using testing::test_input;

struct RuleCase {
  const char* name;
  const char* body;  // statements of a kernel with one (256, 1024) float32 input `a`
  ErrorKind kind;
  const char* message;
};

std::string kernel_text(const char* body) {
  return std::string(
             "import numpy as np\n"
             "import neuronxcc.nki as nki\n"
             "import neuronxcc.nki.language as nl\n"
             "import neuronxcc.nki.isa as nisa\n\n"
             "@nki.jit\n"
             "def kernel(a):\n") +
         body + "\n    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n    return out\n";
}

const RuleCase kCases[] = {
    {"partition_limit", "    t = nl.load(a[0:256, :])", ErrorKind::Rule,
     "partition dimension 256 exceeds the 128 partitions of SBUF (nl.load)"},
    {"compute_on_hbm", "    x = nl.exp(a)", ErrorKind::Rule, "err_unsupported_memory: expected x of nl.exp to be in 'sbuf|psum'"},
    {"load_from_sbuf", "    t = nl.load(a[0:128, :])\n    u = nl.load(t)", ErrorKind::Rule,
     "err_unsupported_memory: expected src of nl.load to be in 'hbm', got 'sbuf'"},
    {"psum_tile_too_big", "    p = nl.zeros((128, 1024), dtype=np.float32, buffer=nl.psum)", ErrorKind::Rule,
     "needs 4096 bytes per partition, more than the 2 KiB of a PSUM bank"},
    {"one_dim_sbuf", "    s = nl.ndarray((128,), dtype=np.float32, buffer=nl.sbuf)", ErrorKind::Rule, "Insufficient rank"},
    {"moving_too_wide", "    x = nl.load(a[0:128, 0:128])\n    y = nl.load(a[0:128, :])\n    p = nisa.nc_matmul(x, y)",
     ErrorKind::Rule, "moving free size 1024 exceeds 512 (gemm_moving_fmax)"},
    {"activation_reduce_max",
     "    x = nl.load(a[0:128, 0:512])\n    r = nl.ndarray((128, 1), dtype=np.float32, buffer=nl.sbuf)\n"
     "    y = nisa.activation(op=nl.copy, data=x, reduce_op=nl.maximum, reduce_res=r)",
     ErrorKind::Rule, "reduce_op of nisa.activation must be an add"},
    {"stationary_too_wide", "    y = nl.load(a[0:128, :])\n    p = nisa.nc_matmul(y[:, 0:256], y[:, 0:512])",
     ErrorKind::Rule, "stationary free size 256 exceeds 128 (gemm_stationary_fmax)"},
    {"contraction_mismatch", "    x = nl.load(a[0:64, 0:128])\n    y = nl.load(a[0:128, 0:512])\n    p = nisa.nc_matmul(x, y)",
     ErrorKind::Rule, "err_num_partition_mismatch"},
    {"matmul_operand_in_hbm", "    y = nl.load(a[0:128, 0:512])\n    q = nisa.nc_matmul(a[0:128, 0:128], y)",
     ErrorKind::Rule, "err_unsupported_memory: expected stationary of nisa.nc_matmul to be in 'sbuf|psum', got 'hbm'"},
    {"new_api_matmul_dst_in_sbuf",
     "    x = nl.load(a[0:128, 0:128])\n    y = nl.load(a[0:128, 0:512])\n"
     "    s = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.sbuf)\n    nisa.nc_matmul(dst=s, stationary=x, moving=y)",
     ErrorKind::Rule, "writes its results to PSUM only (dst of nisa.nc_matmul)"},
    {"gpsimd_reads_psum",
     "    x = nl.load(a[0:128, 0:128])\n    y = nl.load(a[0:128, 0:512])\n    p = nisa.nc_matmul(x, y)\n"
     "    s = nisa.tensor_scalar(data=p, op0=nl.multiply, operand0=2.0, engine=nisa.gpsimd_engine)",
     ErrorKind::Rule, "the GpSimd engine cannot access PSUM (nisa.tensor_scalar)"},
    {"gpsimd_writes_psum",
     "    y = nl.load(a[0:128, 0:512])\n    p = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.psum)\n"
     "    nisa.tensor_scalar(data=y, op0=nl.multiply, operand0=2.0, engine=nisa.gpsimd_engine, dst=p)",
     ErrorKind::Rule, "the GpSimd engine cannot access PSUM"},
    {"gpsimd_memset_into_psum",
     "    p = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.psum)\n"
     "    p[...] = nisa.memset(shape=(128, 512), value=0.0, dtype=np.float32, engine=nisa.gpsimd_engine)",
     ErrorKind::Rule, "the GpSimd engine cannot access PSUM"},
    {"out_of_bounds", "    t = nl.load(a[nl.arange(128)[:, None] + 200, nl.arange(512)[None, :]])", ErrorKind::Index,
     "tensor access out of bound: dimension 0 has size 256 but indices [200, 327] are accessed (nl.load)"},
    {"block_dims_not_indexed",
     "    s = nl.ndarray((2, nl.par_dim(128), 64), dtype=np.float32, buffer=nl.sbuf)\n    e = nl.exp(s)", ErrorKind::Rule,
     "err_failed_to_infer_tile_from_local_tensor"},
    {"mixed_indexing", "    t = nl.load(a[nl.arange(128)[:, None], 0:64])", ErrorKind::Rule,
     "err_unsupported_mixing_basic_advanced_tensor_indexing"},
    {"control_flow_on_arange", "    if nl.arange(4)[:, None] < 2:\n        pass", ErrorKind::Rule,
     "err_control_flow_condition_depending_on_arange"},
    {"destination_too_small",
     "    s = nl.ndarray((128, 64), dtype=np.float32, buffer=nl.sbuf)\n    t = nl.load(a[0:128, 0:128])\n    s[...] = t",
     ErrorKind::Rule, "err_store_dst_shape_smaller_than_other_shape"},
    {"hbm_with_initial_value", "    z = nl.zeros((128, 64), dtype=np.float32, buffer=nl.shared_hbm)", ErrorKind::Rule,
     "err_hbm_tensor_with_init_value_not_supported"},
    {"not_an_alu_op", "    t = nl.load(a[0:128, 0:64])\n    u = nisa.tensor_tensor(t, t, op=3)", ErrorKind::Type,
     "op of nisa.tensor_tensor must be an ALU operator"},
    // An operand slot of a binary operator named a unary one: one check (binary_alu_op), at the
    // call, for every instruction taking such a slot. tensor_scalar's steps also take the unary
    // ALU operators (rsqrt, reciprocal, abs: scalar_step_op), never an activation function.
    {"tensor_scalar_unary_op0", "    t = nl.load(a[0:128, :])\n    u = nisa.tensor_scalar(t, op0=nl.exp, operand0=1.0)",
     ErrorKind::Type, "op0 of nisa.tensor_scalar must be an ALU operator (a binary one, or rsqrt, reciprocal or abs), "
     "got exp"},
    {"tensor_scalar_unary_op1",
     "    t = nl.load(a[0:128, :])\n    u = nisa.tensor_scalar(t, op0=nl.add, operand0=1.0, op1=nl.exp, operand1=2.0)",
     ErrorKind::Type, "op1 of nisa.tensor_scalar must be an ALU operator (a binary one"},
    // rsqrt runs on GpSimd or Scalar (9.1 engines column): not on the Vector Engine.
    {"tensor_scalar_rsqrt_on_vector",
     "    t = nl.load(a[0:128, :])\n"
     "    u = nisa.tensor_scalar(t, op0=nl.rsqrt, operand0=0.0, engine=nisa.vector_engine)",
     ErrorKind::Rule, "nisa.tensor_scalar with op rsqrt runs on the Scalar or GpSimd Engine only, not on the Vector "
     "Engine"},
    {"tensor_scalar_reciprocal_on_gpsimd",
     "    t = nl.load(a[0:128, :])\n"
     "    u = nisa.tensor_scalar(t, op0=nl.add, operand0=1.0, op1=nl.reciprocal, operand1=0.0, engine=nisa.gpsimd_engine)",
     ErrorKind::Rule, "nisa.tensor_scalar with op reciprocal runs on the Vector or Scalar Engine only, not on "
     "the GpSimd Engine"},
    {"scalar_tensor_tensor_rsqrt",
     "    t = nl.load(a[0:128, :])\n"
     "    u = nisa.scalar_tensor_tensor(data=t, op0=nl.rsqrt, operand0=0.0, op1=nl.add, operand1=t)",
     ErrorKind::Type, "op0 of nisa.scalar_tensor_tensor must be a binary ALU operator"},
    {"tensor_scalar_reduce_unary_op0",
     "    t = nl.load(a[0:128, :])\n    r = nl.ndarray((128, 1), dtype=np.float32, buffer=nl.sbuf)\n"
     "    u = nisa.tensor_scalar_reduce(data=t, op0=nl.exp, operand0=1.0, reduce_op=nl.add, reduce_res=r)",
     ErrorKind::Type, "op0 of nisa.tensor_scalar_reduce must be a binary ALU operator"},
    {"tensor_tensor_unary_op", "    t = nl.load(a[0:128, :])\n    u = nisa.tensor_tensor(t, t, op=nl.exp)",
     ErrorKind::Type, "op of nisa.tensor_tensor must be a binary ALU operator"},
    // A causal mask computed from aranges as if they were tiles (nki-language.md 4.2): the rule
    // says what an index expression is for and how to get its values as data.
    {"arange_as_tile_data",
     "    ip = nl.arange(128)[:, None]\n    jf = nl.arange(128)[None, :]\n    keep = nl.greater_equal(ip, jf)",
     ErrorKind::Type, "x of nl.greater_equal is an index expression (nl.arange / nl.mgrid), which only indexes "
     "tensors and builds masks; make its values a tile with nisa.iota(expr, dtype=...) first"},
    // A shape annotation is checked when the kernel is traced (nki-language.md 11).
    {"annotation_shape_mismatch",
     "    import neuronxcc.nki.typing as nt\n    t: nt.tensor[128, 512] = nl.load(a[0:128, :])",
     ErrorKind::Rule, "err_annotation_shape_mismatch: the value has shape [128, 1024], the annotation says [128, 512]"},
    // A legacy kernel's outputs are made at its top level (nki-language.md 3.1): not per iteration
    // of a device loop, `range` included (the compiler makes it a sequential_range).
    {"shared_hbm_in_affine_loop",
     "    for i in nl.affine_range(2):\n        o = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)",
     ErrorKind::Rule, "err_shared_hbm_must_in_kernel_level"},
    {"shared_hbm_in_range_loop",
     "    for i in range(2):\n        o = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)",
     ErrorKind::Rule, "err_shared_hbm_must_in_kernel_level"},
    {"scan_both_inputs_in_psum",
     "    t = nl.load(a[0:128, 0:512])\n    p = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.psum)\n"
     "    p[...] = nl.copy(t)\n    u = nisa.tensor_tensor_scan(p, p, initial=0.0, op0=np.multiply, op1=np.add)",
     ErrorKind::Rule, "at most one input of nisa.tensor_tensor_scan may be in PSUM"},
    // An integer on the partition dim of an (8, 32, 1024) load leaves a view whose first dim is a
    // free one (two outside authors' first drafts used such a view as a matmul operand).
    {"integer_on_partition_dim",
     "    w = nl.load(a.reshape((8, 32, 1024)))\n    y = nl.exp(w[1])",
     ErrorKind::Rule, "not a tile: an integer index fixed the partition dimension of its tensor (shape (8, 32, 1024))"},
};

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, ReportsTheRule) {
  const RuleCase& c = GetParam();
  Harness h;
  auto mod = h.load_text(std::string(c.name) + ".py", kernel_text(c.body));
  try {
    h.run_module(*mod, {test_input({256, 1024}, 0)});
    FAIL() << "expected an error";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, c.kind) << e.diag.message;
    EXPECT_NE(e.diag.message.find(c.message), std::string::npos) << e.diag.message;
    EXPECT_GT(e.diag.loc.line, 7u) << "the interpreter should locate the kernel line";
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// The kernel-level rule for shared_hbm is the legacy compiler's: a static_range body is unrolled
// while tracing (kernel-level code), a newer-API kernel unrolls every loop, and a legacy kernel
// called from a host loop creates its output at its own top level. Each runs.
TEST(Rules, SharedHbmOutsideALegacyDeviceLoopRuns) {
  Harness h;
  auto legacy = h.load_text("static_outputs.py", kernel_text(
      "    for i in nl.static_range(2):\n"
      "        o = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "        nl.store(o, value=nl.load(a[0:128, 0:8]))"));
  EXPECT_NO_THROW(h.run_module(*legacy, {test_input({256, 1024}, 0)}));
  Harness h2;  // an interpreter of its own: the API is what the interpreter imported
  auto newer = h2.load_text("newer_outputs.py",
                           "import nki\nimport nki.language as nl\n\n\n"
                           "@nki.jit\n"
                           "def kernel(a):\n"
                           "    outs = []\n"
                           "    for i in range(2):\n"
                           "        o = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                           "        nl.store(o, value=nl.load(a[i * 128:(i + 1) * 128, 0:8]))\n"
                           "        outs.append(o)\n"
                           "    return tuple(outs)\n");
  EXPECT_NO_THROW(h2.run_module(*newer, {test_input({256, 1024}, 0)}));
}

// nki-language.md 3.10: calling a kernel with a grid from inside another kernel is not supported
// (err_nested_kernel_with_spmd_grid); host code launches the grid, as the SPMD tutorials do.
TEST(Rules, OnlyHostCodeLaunchesAKernelOnAGrid) {
  auto text = [](const std::string& entry) {
    return "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
           "@nki.jit\n"
           "def block(a):\n"
           "    out = nl.ndarray((128, 1024), dtype=a.dtype, buffer=nl.shared_hbm)\n"
           "    i = nl.program_id(0)\n"
           "    nl.store(out[:, i * 512:(i + 1) * 512], value=nl.load(a[0:128, i * 512:(i + 1) * 512]))\n"
           "    return out\n\n\n" + entry;
  };
  Harness host;
  auto from_host = host.load_text("host_launch.py", text("def kernel(a):\n    return block[2](a)\n"));
  EXPECT_NO_THROW(host.run_module(*from_host, {test_input({256, 1024}, 0)}));
  Harness jitted;
  auto from_kernel = jitted.load_text("kernel_launch.py", text("@nki.jit\ndef kernel(a):\n    return block[2](a)\n"));
  try {
    jitted.run_module(*from_kernel, {test_input({256, 1024}, 0)});
    FAIL() << "expected err_nested_kernel_with_spmd_grid";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Rule);
    EXPECT_EQ(e.diag.message.rfind("err_nested_kernel_with_spmd_grid: a kernel cannot launch", 0), 0u) << e.diag.message;
    EXPECT_EQ(e.diag.loc.line, 15u);
  }
}

// nisa.memset runs on "the Vector or GpSimd engine" (nki-language.md 8.3), the compiler's choice
// when the kernel names none: zeroing a PSUM accumulator before `+=` of matmuls (an outside
// author's kernel) is a Vector Engine memset, not a GpSimd one that cannot reach PSUM.
TEST(Rules, AMemsetLeftToTheCompilerZeroesAPsumTileOnTheVectorEngine) {
  Harness h;
  trn::TraceBuffer trace;
  auto mod = h.load_text("memset_psum.py", kernel_text(
      "    x = nl.load(a[0:128, 0:128])\n"
      "    y = nl.load(a[0:128, 0:512])\n"
      "    acc = nl.ndarray((1, nl.par_dim(128), 512), dtype=np.float32, buffer=nl.psum)\n"
      "    acc[0] = nisa.memset(shape=(128, 512), value=0.0, dtype=np.float32)\n"
      "    acc[0] += nisa.nc_matmul(x, y)\n"
      "    z = nisa.memset(shape=(128, 1), value=0.0, dtype=np.float32)"));
  // As eval runs it (numerics, no trace: the placement cannot live in the trace record alone)...
  ASSERT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}, true));
  // ... and traced, on which engine.
  ASSERT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}, true, &trace));
  std::vector<trn::Engine> memsets;
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == trn::Opcode::Memset) memsets.push_back(r.inst.engine);
  // The PSUM one on VectorE; one into SBUF keeps the library's GpSimd placement.
  EXPECT_EQ(memsets, (std::vector<trn::Engine>{trn::Engine::Vector, trn::Engine::GpSimd}));
}

TEST(Rules, MaskedOutOfBoundsElementsAreNotErrors) {
  Harness h;
  auto mod = h.load_text("masked.py", kernel_text(
      "    t = nl.load(a[nl.arange(128)[:, None] + 200, nl.arange(512)[None, :]], mask=(nl.arange(128)[:, None] + 200 < 256))"));
  EXPECT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}));
}

// A mask false everywhere (a library kernel's loop one chunk past the end): the compiler skips the
// instruction at no runtime cost (nki-language.md 3.9), so the trace holds none for the store and
// the compute; the store of zero bytes used to divide by its zero rows in the DMA cost (SIGFPE).
TEST(Rules, AnInstructionMaskedEverywhereIsSkipped) {
  Harness h;
  trn::TraceBuffer trace;
  auto mod = h.load_text("all_masked.py", kernel_text(
      "    i_p = nl.arange(128)[:, None]\n"
      "    i_f = nl.arange(512)[None, :]\n"
      "    t = nl.load(a[i_p, i_f])\n"
      "    o = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    e = nl.exp(t, mask=(i_f < 0))\n"
      "    nl.store(o[i_p, i_f], value=t, mask=(i_f < 0))\n"
      "    nl.store(o[i_p, i_f], value=t, mask=(i_f < 1))"));
  ASSERT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}, true, &trace));
  std::vector<trn::Opcode> ops;
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction) ops.push_back(r.inst.opcode);
  EXPECT_EQ(ops, (std::vector<trn::Opcode>{trn::Opcode::DmaLoad, trn::Opcode::DmaStore}));
}

// A comparison of loop indices alone is a Python bool when the loops run on concrete integers (the
// legacy tracer had a predicate of the loop variables): in a mask it holds for every element or for
// none, `&` and `|` on either side of a predicate (a generated kernel's guard of a ragged outer tile,
// `(k_0 * U + k_1 < S) & (i_f < N)`). Each store below runs in the first iteration only.
TEST(Rules, ALoopIndexComparisonCombinesWithAMaskAsABool) {
  Harness h;
  trn::TraceBuffer trace;
  auto mod = h.load_text("loop_guard.py", kernel_text(
      "    i_p = nl.arange(128)[:, None]\n"
      "    i_f = nl.arange(512)[None, :]\n"
      "    o = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    for k in nl.affine_range(2):\n"
      "        t = nl.load(a[i_p, i_f])\n"
      "        nl.store(o[i_p, i_f], value=t, mask=(k < 1) & (i_f < 512))\n"
      "        nl.store(o[i_p, i_f], value=t, mask=(i_f < 512) & (k < 1))\n"
      "        nl.store(o[i_p, i_f], value=t, mask=(k < 1) | (i_f < 0))\n"
      "        nl.store(o[i_p, i_f], value=t, mask=(i_f < 0) | (k < 1))"));
  ASSERT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}, true, &trace));
  int stores = 0;
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == trn::Opcode::DmaStore) ++stores;
  EXPECT_EQ(stores, 4);
}

// The same ragged last row block written as a slice (`nl.ds`): the mask gates the bounds check of
// the elements it leaves out (nki-language.md 3.9), and the masked-in rows are read.
TEST(Rules, AMaskedSliceReachingPastTheEndIsNotAnError) {
  Harness h;
  auto mod = h.load_text("masked_slice.py", kernel_text(
      "    t = nl.load(a[nl.ds(200, 128), 0:512], mask=(nl.arange(128)[:, None] + 200 < 256))"));
  EXPECT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}));
  // Unmasked, the rows past the end are accessed: an error, not a clipped read.
  auto bad = h.load_text("unmasked_slice.py", kernel_text("    t = nl.load(a[nl.ds(200, 128), 0:512])"));
  try {
    h.run_module(*bad, {test_input({256, 1024}, 0)});
    ADD_FAILURE() << "an unmasked slice past the end was read";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Index);
    EXPECT_NE(std::string(e.what()).find("out of bound"), std::string::npos) << e.what();
  }
}

// nisa.tensor_copy(engine=) runs where the kernel says (Vector, Scalar or GpSimd), and the cost
// model may not move it (engine_chosen_by_user); without engine= the compiler's default.
TEST(Rules, TensorCopyRunsOnTheEngineTheKernelNames) {
  Harness h;
  trn::TraceBuffer trace;
  auto mod = h.load_text("copy_engines.py", kernel_text(
      "    x = nl.load(a[0:128, 0:512])\n"
      "    y = nisa.tensor_copy(x, engine=nisa.gpsimd_engine)\n"
      "    z = nisa.tensor_copy(y, engine=nisa.scalar_engine)\n"
      "    w = nisa.tensor_copy(z)"));
  ASSERT_NO_THROW(h.run_module(*mod, {test_input({256, 1024}, 0)}, true, &trace));
  std::vector<std::pair<trn::Engine, bool>> copies;
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == trn::Opcode::TensorCopy)
      copies.push_back({r.inst.engine, r.inst.engine_chosen_by_user});
  EXPECT_EQ(copies, (std::vector<std::pair<trn::Engine, bool>>{
                        {trn::Engine::GpSimd, true}, {trn::Engine::Scalar, true}, {trn::Engine::Vector, false}}));
  auto pe = h.load_text("copy_pe.py", kernel_text(
      "    x = nl.load(a[0:128, 0:512])\n"
      "    y = nisa.tensor_copy(x, engine=nisa.tensor_engine)"));
  try {
    h.run_module(*pe, {test_input({256, 1024}, 0)});
    ADD_FAILURE() << "a tensor_copy on the Tensor Engine ran";
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Rule) << e.what();
  }
}

// The newer nki API has no tensor_copy on NeuronCore-v2's Scalar Engine (nki-language.md 12.2: "not
// on Scalar Engine for v2 (use activation(op=nl.copy))"): one left to the compiler is traced on
// VectorE marked no_scalar_engine, and the simulator keeps it there, a PSUM evacuation too (an
// outside author's newer-API gqa_full had all 17152 PSUM copies balanced onto ScalarE on trn1). The
// legacy API's evacuation still goes to ScalarE (8.3; the recorded Trn1 profiles), and on
// NeuronCore-v3 (trn2) the newer API's goes there as before. The engine is the compiler's in every
// case (not the user's).
TEST(Rules, NewerApiTensorCopyStaysOffTheScalarEngineOfNeuronCoreV2) {
  const std::string newer =
      "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n@nki.jit\ndef kernel(a):\n"
      "    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)\n"
      "    t = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)\n"
      "    nisa.dma_copy(dst=t, src=a[0:128, 0:128])\n"
      "    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)\n"
      "    nisa.nc_matmul(dst=acc, stationary=t, moving=t)\n"
      "    u = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)\n"
      "    nisa.tensor_copy(dst=u, src=acc)\n"
      "    nisa.dma_copy(dst=out, src=u)\n"
      "    return out\n";
  const std::string legacy = kernel_text(
      "    t = nl.load(a[0:128, 0:128])\n"
      "    acc = nisa.nc_matmul(t, t)\n"
      "    u = nisa.tensor_copy(acc)\n"
      "    nl.store(a[0:128, 0:128], value=u)");
  struct Case {
    const std::string* text;
    int nc_version;
    bool off_scalar;  // traced no_scalar_engine, simulated on VectorE
  };
  for (const Case& c : {Case{&newer, 2, true}, Case{&newer, 3, false}, Case{&legacy, 2, false}, Case{&legacy, 3, false}}) {
    SCOPED_TRACE((c.text == &newer ? "newer API, NeuronCore-v" : "legacy API, NeuronCore-v") + std::to_string(c.nc_version));
    Harness h;
    trn::TraceBuffer trace;
    auto mod = h.load_text("api_copy.py", *c.text);
    KernelRunOptions opt;
    opt.numerics = false;
    opt.sink = &trace;
    opt.nc_version = c.nc_version;
    ASSERT_NO_THROW(run_kernel(h.in, *mod, {make_array(tensor::Array::shape_only({256, 1024}, tensor::DType::Float32))}, opt));
    int copies = 0;
    for (const auto& r : trace.records) {
      if (r.kind != trn::RecordKind::Instruction || r.inst.opcode != trn::Opcode::TensorCopy) continue;
      ++copies;
      EXPECT_EQ(r.inst.engine, trn::Engine::Vector);
      EXPECT_FALSE(r.inst.engine_chosen_by_user);
      EXPECT_EQ(r.inst.no_scalar_engine, c.off_scalar);
    }
    EXPECT_EQ(copies, 1);
    trn::Profile p = trn::simulate(trace.records, trn::arch_config(c.nc_version == 2 ? "trn1" : "trn2"));
    auto busy = [&](const char* engine) { return p.engine_busy_ms.count(engine) ? p.engine_busy_ms.at(engine) : 0.0; };
    EXPECT_EQ(busy("dve") > 0, c.off_scalar) << busy("dve");
    EXPECT_EQ(busy("act") > 0, !c.off_scalar) << busy("act");
  }
}

// Block dims are logical: a huge declaration is fine in trace-only mode but a numerics run hits
// the memory limit with a Limit diagnostic instead of exhausting the machine.
TEST(Rules, GiantNdarrayHitsTheMemoryLimitCleanly) {
  Limits limits;
  limits.max_bytes = 64ull << 20;
  const char* body = "    big = nl.ndarray((1000, nl.par_dim(128), 4096), dtype=np.float32, buffer=nl.sbuf)";
  {
    Harness h(limits);
    auto mod = h.load_text("giant.py", kernel_text(body));
    try {
      h.run_module(*mod, {test_input({256, 1024}, 0)});
      FAIL() << "expected the memory limit";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, ErrorKind::Limit) << e.diag.message;
    }
  }
  Harness h(limits);
  auto mod = h.load_text("giant.py", kernel_text(body));
  EXPECT_NO_THROW(h.run_module(*mod, {tensor::Array::shape_only({256, 1024}, tensor::DType::Float32)}, false));
}

TEST(Rules, MissingKernelFunctionIsANameError) {
  Harness h;
  auto mod = h.load_text("nokernel.py", "x = 1\n");
  try {
    h.run_module(*mod, {});
    FAIL();
  } catch (const NkiError& e) {
    EXPECT_EQ(e.diag.kind, ErrorKind::Name);
  }
}

}  // namespace
}  // namespace nki::lib
