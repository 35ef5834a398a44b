// The form says what will run: an elementwise unary function lifts onto the engine the interpreter
// records it on (one rule, trn/unary_engine.h), whether written `-x`, `nl.negative(x)` or `nl.exp(x)`.
#include <map>
#include <string>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "../nkilib/kernel_harness.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "trn/trace.h"

namespace {

// One statement per line, so a trace record and a form operation meet on their source line.
const char* kUnaryKernel = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=np.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y0 = -x
    y1 = nl.negative(x)
    y2 = nl.abs(x)
    y3 = nl.floor(x)
    y4 = nl.ceil(x)
    y5 = nl.trunc(x)
    y6 = nl.exp(x)
    y7 = nl.tanh(x)
    y8 = nl.sign(x)
    y9 = nl.square(x)
    z = nl.add(y0, y1)
    nl.store(out, value=z)
    return out
)";

TEST(UnaryEngine, TheFormLiftsEachUnaryOntoTheEngineTheInterpreterRunsItOn) {
  std::vector<loopnest::ArgSpec> args(1);
  args[0].shape = {128, 64};
  loopnest::Kernel k = loopnest::lift_source("unary.py", kUnaryKernel, args);

  nki::lib::testing::Harness h;
  trn::TraceBuffer trace;
  h.run_module(*h.load_text("unary.py", kUnaryKernel), {nki::lib::testing::test_input({128, 64}, 1)}, false, &trace);
  std::map<uint32_t, trn::Engine> traced;  // source line -> the engine of its instruction
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction) traced[r.line] = r.inst.engine;

  const std::map<loopnest::Engine, trn::Engine> same = {{loopnest::Engine::Vector, trn::Engine::Vector},
                                                        {loopnest::Engine::Scalar, trn::Engine::Scalar},
                                                        {loopnest::Engine::GpSimd, trn::Engine::GpSimd}};
  loopnest::Analysis an(k);
  int compared = 0, on_vector = 0;
  for (const auto& r : an.ops) {
    uint32_t line = r.node->origin ? r.node->origin->span.line : 0;
    if (line < 10 || line > 19) continue;  // y0 .. y9
    ASSERT_TRUE(traced.count(line)) << "line " << line << " has no instruction in the trace";
    ASSERT_TRUE(same.count(r.op().engine)) << "line " << line << ": " << r.op().api;
    EXPECT_EQ(same.at(r.op().engine), traced.at(line)) << "line " << line << ": " << r.op().api;
    on_vector += traced.at(line) == trn::Engine::Vector;
    ++compared;
  }
  EXPECT_EQ(compared, 10);
  // `-x`, negative, abs, floor, ceil, trunc on the Vector Engine; exp, tanh, sign, square activations.
  EXPECT_EQ(on_vector, 6);
}

}  // namespace
