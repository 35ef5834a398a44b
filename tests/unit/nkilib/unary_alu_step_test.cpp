// The unary ALU operators as nisa.tensor_scalar steps (nki-language.md 9.1: rsqrt, reciprocal,
// abs "in tensor_scalar with a dummy operand"): op(data) in fp32, the operand ignored, on the
// engines the operator table names. Refusals (nl.exp, rsqrt on the Vector Engine) are in
// rules_test.cpp.
#include <cmath>

#include "kernel_harness.h"

namespace nki::lib {
namespace {

using testing::at;
using testing::expect_all;
using testing::Harness;
using testing::test_input;

// tests/kernels/corpus/new_unary_alu_steps.py: x * rsqrt(x*x + 1) + 1 / (x*x + 1) - |x|, each
// step in float32 as the kernel stores it.
TEST(UnaryAluSteps, ComputeTheOperatorAndIgnoreTheDummyOperand) {
  Harness h;
  auto x = test_input({256, 512}, 3);
  auto r = h.run("corpus/new_unary_alu_steps.py", {x});
  ASSERT_EQ(r.outputs.size(), 1u);
  expect_all(r.outputs[0], [&](int64_t i, int64_t j) {
    float v = float(at(x, i, j));
    float sq = v * v, d2 = sq + 1.0f;
    float inv = 1.0f / std::sqrt(d2), rec = 1.0f / (sq + 1.0f);
    return double(v * inv + rec - std::fabs(v));
  });
}

// Placement: rsqrt on GpSimd as the kernel asks, add-then-reciprocal where the compiler picks
// (Vector), abs on the Scalar Engine as asked; a unary step records by its name (since session 26;
// AluOp::Other before), so that the cost model and the engine balance see the operator.
TEST(UnaryAluSteps, RunOnTheEnginesTheOperatorTableNames) {
  Harness h;
  trn::TraceBuffer trace;
  h.run("corpus/new_unary_alu_steps.py", {test_input({128, 512}, 1)}, false, &trace);
  std::vector<trn::Engine> engines;
  std::vector<trn::AluOp> alus, alus1;
  for (const auto& rec : trace.records)
    if (rec.kind == trn::RecordKind::Instruction && rec.inst.opcode == trn::Opcode::TensorScalar) {
      engines.push_back(rec.inst.engine);
      alus.push_back(rec.inst.alu);
      alus1.push_back(rec.inst.alu1);
    }
  EXPECT_EQ(engines, (std::vector<trn::Engine>{trn::Engine::Vector, trn::Engine::GpSimd, trn::Engine::Vector,
                                               trn::Engine::Scalar}));
  using A = trn::AluOp;
  EXPECT_EQ(alus, (std::vector<A>{A::Add, A::Rsqrt, A::Add, A::Abs}));
  EXPECT_EQ(alus1, (std::vector<A>{A::Unknown, A::Unknown, A::Reciprocal, A::Unknown}));
}

}  // namespace
}  // namespace nki::lib
