// The precision rule judged by the formats the interpreter saw (eval/precision.h), never by text:
// fp32 data computed in a narrower float format is lower_precision however the kernel obtained
// the format; a task whose data is bf16 may compute in bf16 (and accumulate in fp32), in any style.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "eval/evaluate.h"
#include "eval_test_util.h"
#include "temp_dir.h"

namespace {

using eval_test::joined;

const std::string kAddRef = eval_test::source_dir() + "/examples/add/reference.py";

const char* kHead =
    "import numpy as np\n"
    "import neuronxcc.nki as nki\n"
    "import neuronxcc.nki.language as nl\n"
    "import neuronxcc.nki.isa as nisa\n"
    "\n"
    "\n";

eval::EvalRequest check(const std::string& reference_text, const std::string& kernel_text) {
  eval::EvalRequest req;
  req.reference_path = "reference.py";
  req.reference_text = reference_text;
  req.kernel_path = "kernel.py";
  req.kernel_text = kernel_text;
  req.seeds = {0, 1};
  req.limits.max_seconds = 60;
  req.profile = false;
  return req;
}

// The add kernel (examples/add) with `prelude` before the loop and `tile` computing the stored
// tile of row block r from x and y.
std::string add_kernel(const std::string& prelude, const std::string& tile) {
  return std::string(kHead) + prelude +
         "@nki.jit\n"
         "def kernel(x, y):\n"
         "    rows, cols = x.shape\n"
         "    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for r in nl.affine_range(rows // 128):\n"
         "        xs = x[r * 128:(r + 1) * 128, :]\n"
         "        ys = y[r * 128:(r + 1) * 128, :]\n" +
         tile +
         "        nl.store(out[r * 128:(r + 1) * 128, :], value=total)\n"
         "    return out\n";
}

struct Route {
  const char* name;
  const char* prelude;
  const char* tile;
};

// Ways a kernel can come to compute in bf16 (or fp8) on the fp32 add task.
const Route kDowngrades[] = {
    {"LoadDtypeArgument", "",
     "        a = nl.load(xs, dtype=nl.bfloat16)\n        b = nl.load(ys, dtype=nl.bfloat16)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"DtypeFromGetattr", "",
     "        low = getattr(nl, 'bf' + 'loat16')\n"
     "        a = nl.load(xs, dtype=low)\n        b = nl.load(ys, dtype=low)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"DtypeAsString", "",
     "        a = nl.load(xs, dtype='bfloat16')\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"DtypeFromAHelpersDefault", "def narrow(t, d=nl.float16):\n    return nisa.tensor_copy(t, dtype=d)\n\n\n",
     "        a = narrow(nl.load(xs))\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"ComputeDtype", "",
     "        a = nl.load(xs)\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_copy(nisa.tensor_tensor(a, b, nl.add, dtype=nl.bfloat16), dtype=nl.float32)\n"},
    {"SbufBufferDeclaredNarrow", "",
     "        a = nl.ndarray((128, cols), dtype=nl.bfloat16, buffer=nl.sbuf)\n"
     "        a[...] = nl.load(xs)\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"HbmScratchRoundTrip", "",
     "        scratch = nl.ndarray((128, cols), dtype=nl.bfloat16, buffer=nl.hbm)\n"
     "        nl.store(scratch, value=nl.load(xs))\n"
     "        a = nl.load(scratch, dtype=nl.float32)\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"Fp8", "",
     "        a = nl.load(xs, dtype=nl.float8_e4m3)\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
    {"ActivationOutputDtype", "",
     "        a = nisa.activation(op=nl.copy, data=nl.load(xs), dtype=nl.bfloat16)\n        b = nl.load(ys)\n"
     "        total = nisa.tensor_tensor(a, b, nl.add, dtype=nl.float32)\n"},
};

void PrintTo(const Route& route, std::ostream* os) { *os << route.name; }

class Downgrade : public ::testing::TestWithParam<Route> {};

TEST_P(Downgrade, OnFp32DataIsLowerPrecision) {
  const Route& route = GetParam();
  eval::Evaluation r = eval::evaluate(check(bench::read_file(kAddRef), add_kernel(route.prelude, route.tile)));
  EXPECT_EQ(r.status, eval::Status::LowerPrecision) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->stage, eval::Stage::Precision);
  EXPECT_GT(r.failure->line, 0u);  // located at the instruction that used the format
}

INSTANTIATE_TEST_SUITE_P(Routes, Downgrade, ::testing::ValuesIn(kDowngrades),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Precision, Fp32KernelOnFp32DataIsOk) {
  eval::Evaluation r = eval::evaluate(check(bench::read_file(kAddRef),
                                            add_kernel("", "        a = nl.load(xs)\n        b = nl.load(ys)\n"
                                                           "        total = nisa.tensor_tensor(a, b, nl.add)\n")));
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
}

// A bf16 task: a matmul of bf16 operands, accumulated and returned in fp32 (what a bf16
// transformer layer does). The kernel reads bf16 (its inputs are bf16) and accumulates in PSUM.
const char* kBf16MatmulRef =
    "import numpy as np\n"
    "\n"
    "K = 128\nM = 128\nN = 512\n"
    "\n"
    "def get_inputs():\n"
    "    lhsT = np.random.normal(size=(K, M)).astype('bfloat16')\n"
    "    rhs = np.random.normal(size=(K, N)).astype('bfloat16')\n"
    "    return [lhsT, rhs]\n"
    "\n"
    "def forward(lhsT, rhs):\n"
    "    return np.matmul(lhsT.astype(np.float32).T, rhs.astype(np.float32))\n"
    "\n"
    "def transform_to_nki_inputs(inputs):\n"
    "    return inputs\n"
    "\n"
    "def transform_nki_outputs(k_res, ref):\n"
    "    return [np.reshape(k_res, ref.shape)]\n";

std::string bf16_matmul_kernel(const std::string& operand_dtype) {
  std::string dtype = operand_dtype.empty() ? "" : ", dtype=" + operand_dtype;
  return std::string(kHead) +
         "@nki.jit\n"
         "def kernel(lhsT, rhs):\n"
         "    K, M = lhsT.shape\n"
         "    _, N = rhs.shape\n"
         "    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)\n"
         "    a = nl.load(lhsT" + dtype + ")\n"
         "    b = nl.load(rhs" + dtype + ")\n"
         "    acc = nisa.nc_matmul(a, b)\n"
         "    nl.store(out, value=nl.copy(acc, dtype=nl.float32))\n"
         "    return out\n";
}

TEST(Precision, Bf16TaskComputedInBf16WithFp32AccumulationIsOk) {
  eval::Evaluation r = eval::evaluate(check(kBf16MatmulRef, bf16_matmul_kernel("")));
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
  // Upcasting the operands is allowed too (more precision than the data).
  r = eval::evaluate(check(kBf16MatmulRef, bf16_matmul_kernel("nl.float32")));
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
}

TEST(Precision, Bf16TaskComputedInFp8IsLowerPrecision) {
  eval::Evaluation r = eval::evaluate(check(kBf16MatmulRef, bf16_matmul_kernel("nl.float8_e4m3")));
  EXPECT_EQ(r.status, eval::Status::LowerPrecision) << joined(r.diagnostics);
}

// The same matmul on fp32 data: operands narrowed to bf16 are refused, although the kernel's
// text is the bf16 task's kernel with one dtype changed.
TEST(Precision, Fp32TaskComputedInBf16IsLowerPrecision) {
  std::string fp32_ref = kBf16MatmulRef;
  for (size_t at; (at = fp32_ref.find(".astype('bfloat16')")) != std::string::npos;)
    fp32_ref.replace(at, std::string(".astype('bfloat16')").size(), ".astype(np.float32)");
  eval::Evaluation ok = eval::evaluate(check(fp32_ref, bf16_matmul_kernel("")));
  EXPECT_EQ(ok.status, eval::Status::Ok) << joined(ok.diagnostics);
  eval::Evaluation r = eval::evaluate(check(fp32_ref, bf16_matmul_kernel("nl.bfloat16")));
  EXPECT_EQ(r.status, eval::Status::LowerPrecision) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->line, 12u);  // the first narrowed load
}

// A reference that itself quantises to fp8 (tests/kernels/corpus/usr_fp8_quant_matmul): the task's
// format is what forward() computes in, so the kernel's fp8 operands are the task's precision --
// also when forward()'s outputs come from the reference cache, which keeps its formats. The same
// reference without the quantisation makes the same kernel lower_precision.
std::string corpus_file(const std::string& name) {
  std::ifstream in(eval_test::source_dir() + "/tests/kernels/corpus/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Precision, Fp8KernelIsJudgedAgainstAReferenceThatQuantisesToFp8) {
  std::string ref = corpus_file("usr_fp8_quant_matmul.ref.py"), kernel = corpus_file("usr_fp8_quant_matmul.py");
  ASSERT_FALSE(ref.empty());
  eval::TempDir cache;
  eval::EvalRequest req = check(ref, kernel);
  req.cache_dir = cache.path();
  for (int run = 0; run < 2; ++run) {  // the second run reads forward()'s outputs from the cache
    eval::Evaluation r = eval::evaluate(req);
    EXPECT_EQ(r.status, eval::Status::Ok) << "run " << run << ": " << joined(r.diagnostics);
  }
  std::string unquantised = ref;
  const std::string q = ".astype(ml_dtypes.float8_e4m3).astype(np.float32)";
  for (size_t at; (at = unquantised.find(q)) != std::string::npos;) unquantised.erase(at, q.size());
  eval::Evaluation r = eval::evaluate(check(unquantised, kernel));
  EXPECT_EQ(r.status, eval::Status::LowerPrecision) << joined(r.diagnostics);
}

}  // namespace

