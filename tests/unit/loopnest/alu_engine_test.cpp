// One table decides which engine runs a two-operand ALU operation on which data
// (trn/alu_engines.h). For every operation and dtype it covers, in both instructions and both
// spellings (nl.<op> and nisa.*), the engine the interpreter records in the trace, the engine the
// lift gives the form's operation and the engines engine_assign offers all follow the table; and
// an int32 add written in the three styles (legacy nl, nisa, the newer destination-first API)
// lifts onto the engine the trace runs it on.
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "../nkilib/kernel_harness.h"
#include "loopnest/alu_engine.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "trn/alu_engines.h"
#include "trn/trace.h"

namespace {

using loopnest::Engine;

// The engine the trace records per source line (one instruction per statement line).
std::map<uint32_t, trn::Engine> traced_engines(const std::string& path, const std::string& text,
                                               const std::vector<tensor::Array>& inputs) {
  nki::lib::testing::Harness h;
  trn::TraceBuffer trace;
  h.run_module(*h.load_text(path, text), inputs, false, &trace);
  std::map<uint32_t, trn::Engine> traced;
  for (const auto& r : trace.records)
    if (r.kind == trn::RecordKind::Instruction) traced[r.line] = r.inst.engine;
  return traced;
}

// The form's engine per source line of the statements in [first, last].
std::map<uint32_t, Engine> lifted_engines(loopnest::Kernel& k, uint32_t first, uint32_t last) {
  std::map<uint32_t, Engine> lifted;
  loopnest::Analysis an(k);
  for (const auto& r : an.ops) {
    uint32_t line = r.node->origin ? r.node->origin->span.line : 0;
    if (line >= first && line <= last) lifted[line] = r.op().engine;
  }
  return lifted;
}

// The engines engine_assign offers per source line.
std::map<uint32_t, std::set<std::string>> offered_moves(const loopnest::Kernel& k) {
  std::map<uint32_t, std::set<std::string>> offered;
  for (const auto& s : loopnest::find_transform("engine_assign")->find(k))
    offered[uint32_t(s.line)].insert(s.params.at("engine"));
  return offered;
}

const char* word(trn::Engine e) {
  return e == trn::Engine::GpSimd ? "gpsimd" : e == trn::Engine::Scalar ? "scalar" : "vector";
}

tensor::Array input_of(const std::string& dtype) {
  auto a = nki::lib::testing::test_input({128, 64}, 1);
  return tensor::astype(a, *tensor::parse_dtype(dtype));
}

// Lines 12-15: nl.<op> of two tiles, nisa.tensor_tensor, nisa.tensor_scalar, nl.<op> of a tile and
// a number. The number is typed as the data (np.<dtype>), so the language op keeps the dtype.
std::string kernel_text(const std::string& op, const std::string& dtype) {
  return fmt::format(R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.{1}, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    t0 = nl.{0}(x, y)
    t1 = nisa.tensor_tensor(x, y, op=nl.{0})
    t2 = nisa.tensor_scalar(x, op0=nl.{0}, operand0=np.{1}(2))
    t3 = nl.{0}(x, np.{1}(2))
    nl.store(out, value=t1)
    return out
)",
                     op, dtype);
}

struct Case {
  std::string op;
  tensor::BinaryOp binary;
};

TEST(AluEngineTable, TraceLiftAndEngineAssignAgreeWithTheTableForEveryOperationAndDtype) {
  const std::vector<Case> ops = {{"add", tensor::BinaryOp::Add},           {"subtract", tensor::BinaryOp::Sub},
                                 {"multiply", tensor::BinaryOp::Mul},      {"maximum", tensor::BinaryOp::Maximum},
                                 {"power", tensor::BinaryOp::Pow},
                                 {"bitwise_and", tensor::BinaryOp::BitAnd}, {"left_shift", tensor::BinaryOp::LShift}};
  int compared = 0, on_gpsimd = 0;
  for (const std::string dtype : {"float32", "float16", "int32", "uint32", "int16"}) {
    auto parsed = *tensor::parse_dtype(dtype);
    for (const Case& c : ops) {
      bool bitvec = trn::alu_of(c.binary) == trn::AluOp::Bitwise;
      if (bitvec && !tensor::is_integer(parsed)) continue;  // bitvec needs integer data (refused otherwise)
      SCOPED_TRACE(c.op + " on " + dtype);
      std::string text = kernel_text(c.op, dtype);
      std::vector<loopnest::ArgSpec> args(2);
      for (auto& a : args) a.shape = {128, 64}, a.dtype = dtype;
      loopnest::Kernel k = loopnest::lift_source("alu.py", text, args);
      auto traced = traced_engines("alu.py", text, {input_of(dtype), input_of(dtype)});
      auto lifted = lifted_engines(k, 12, 15);
      auto offered = offered_moves(k);
      bool int32 = trn::is_integer32(parsed);
      for (uint32_t line = 12; line <= 15; ++line) {
        SCOPED_TRACE(fmt::format("line {}", line));
        auto form = line == 12 || line == 13 ? trn::AluForm::TensorTensor : trn::AluForm::TensorScalar;
        const trn::AluPlacement row = trn::alu_placement(form, {trn::alu_of(c.binary)}, int32);
        ASSERT_TRUE(traced.count(line));
        ASSERT_TRUE(lifted.count(line));
        EXPECT_EQ(traced.at(line), row.chosen);
        EXPECT_EQ(loopnest::to_trn(lifted.at(line)), row.chosen);
        std::set<std::string> expected;
        for (trn::Engine e : {trn::Engine::Vector, trn::Engine::Scalar, trn::Engine::GpSimd})
          if (e != row.chosen && (row.allowed & trn::engine_bit(e))) expected.insert(word(e));
        EXPECT_EQ(offered[line], expected);
        on_gpsimd += row.chosen == trn::Engine::GpSimd;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 4 * (7 * 3 + 5 * 2));
  // power in every form and dtype (4 x 5), the 32-bit integer add/subtract/multiply (4 x 3 x 2).
  EXPECT_EQ(on_gpsimd, 20 + 24);
}

// divide is no ISA operator (nki-language.md 9.1: "nl.divide exists as a language API but is not in
// the ISA operator table"): the trace refuses nisa.tensor_tensor / tensor_scalar with it, and
// engine_assign offers the language nl.divide (a tile by a tile, or by a number) no nisa spelling
// on any engine. Until session 38 it offered tensor_scalar(op0=nl.divide) on GpSimd and ScalarE.
TEST(AluEngineTable, TheLanguageDivideIsOfferedNoIsaSpelling) {
  std::string text = kernel_text("divide", "float32");
  std::vector<loopnest::ArgSpec> args(2);
  for (auto& a : args) a.shape = {128, 64}, a.dtype = "float32";
  loopnest::Kernel k = loopnest::lift_source("alu.py", text, args);
  auto offered = offered_moves(k);
  EXPECT_TRUE(offered[12].empty());
  EXPECT_TRUE(offered[15].empty());
  EXPECT_THROW(traced_engines("alu.py", text, {input_of("float32"), input_of("float32")}), std::exception);
}

// The same int32 addition in the three styles; the trace and the form must say the same engine.
const char* kLegacyNl = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    s = x + y
    nl.store(out, value=s)
    return out
)";

const char* kLegacyNisa = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    s = nisa.tensor_tensor(x, y, op=nl.add)
    nl.store(out, value=s)
    return out
)";

const char* kNewerApi = R"(import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    y = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.sbuf)
    s = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=s, data1=x, data2=y, op=nl.add)
    nisa.dma_copy(dst=out, src=s)
    return out
)";

TEST(AluEngineTable, AnInt32AddLiftsOntoTheEngineTheTraceRunsItOnInEveryStyle) {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"legacy nl", kLegacyNl}, {"legacy nisa", kLegacyNisa}, {"newer API", kNewerApi}}) {
    SCOPED_TRACE(name);
    std::vector<loopnest::ArgSpec> args(2);
    for (auto& a : args) a.shape = {128, 64}, a.dtype = "int32";
    loopnest::Kernel k = loopnest::lift_source("add.py", text, args);
    auto traced = traced_engines("add.py", text, {input_of("int32"), input_of("int32")});
    loopnest::Analysis an(k);
    int adds = 0;
    for (const auto& r : an.ops) {
      const auto& op = r.op();
      if (op.api != "nl.add" && op.api != "nisa.tensor_tensor") continue;
      uint32_t line = r.node->origin->span.line;
      ASSERT_TRUE(traced.count(line));
      EXPECT_EQ(traced.at(line), trn::Engine::GpSimd);  // nki-language.md 8.3: 32-bit integer add on GpSimd
      EXPECT_EQ(op.engine, Engine::GpSimd);
      // GpSimd is its only engine: no move is offered.
      EXPECT_TRUE(offered_moves(k)[line].empty());
      ++adds;
    }
    EXPECT_EQ(adds, 1);
  }
}

// ScalarE's tensor_scalar is a pair rule (ISA tensor_scalar: (multiply, add), (multiply, none),
// (add, none)): the table allows it for the pair, not for each step.
TEST(AluEngineTable, TheScalarEngineRunsOnlyMultiplyAddTensorScalars) {
  using A = trn::AluOp;
  auto on_scalar = [](std::initializer_list<A> ops) {
    return bool(trn::alu_placement(trn::AluForm::TensorScalar, ops, false).allowed & trn::engine_bit(trn::Engine::Scalar));
  };
  EXPECT_TRUE(on_scalar({A::Multiply}));
  EXPECT_TRUE(on_scalar({A::Add}));
  EXPECT_TRUE(on_scalar({A::Multiply, A::Add}));
  EXPECT_FALSE(on_scalar({A::Add, A::Multiply}));
  EXPECT_FALSE(on_scalar({A::Subtract}));
  EXPECT_FALSE(on_scalar({A::Max}));
  EXPECT_FALSE(on_scalar({A::Multiply, A::Max}));
  // The other engines are not touched by it, and a two-tile operation never runs on ScalarE.
  EXPECT_TRUE(trn::alu_placement(trn::AluForm::TensorScalar, {A::Subtract}, false).allowed &
              trn::engine_bit(trn::Engine::GpSimd));
  EXPECT_FALSE(trn::alu_placement(trn::AluForm::TensorTensor, {A::Add}, false).allowed &
               trn::engine_bit(trn::Engine::Scalar));
}

// The unary ALU operators as tensor_scalar steps (nki-language.md 9.1 engines column): rsqrt on
// GpSimd or Scalar (GpSimd the pick), reciprocal and abs on Vector or Scalar; on ScalarE alone or
// after a multiply or add (func(data * scale + bias)). An activation-only function has no row.
TEST(AluEngineTable, UnaryAluStepsRunWhereTheOperatorTableSays) {
  using U = tensor::UnaryOp;
  auto place = [](std::initializer_list<trn::AluStep> steps) {
    return trn::alu_placement(trn::AluForm::TensorScalar, std::span<const trn::AluStep>(steps.begin(), steps.size()),
                              false);
  };
  const trn::AluStep rsqrt{trn::AluOp::Rsqrt, U::Rsqrt}, recip{trn::AluOp::Reciprocal, U::Reciprocal};
  const trn::AluStep add{trn::AluOp::Add, std::nullopt}, sub{trn::AluOp::Subtract, std::nullopt};
  EXPECT_EQ(place({rsqrt}).allowed, trn::engine_set({trn::Engine::GpSimd, trn::Engine::Scalar}));
  EXPECT_EQ(place({rsqrt}).chosen, trn::Engine::GpSimd);
  EXPECT_EQ(place({recip}).allowed, trn::engine_set({trn::Engine::Vector, trn::Engine::Scalar}));
  EXPECT_EQ(place({recip}).chosen, trn::Engine::Vector);
  EXPECT_EQ(place({add, recip}).allowed, trn::engine_set({trn::Engine::Vector, trn::Engine::Scalar}));
  EXPECT_EQ(place({recip, add}).allowed, trn::engine_set({trn::Engine::Vector}));
  EXPECT_EQ(place({sub, recip}).allowed, trn::engine_set({trn::Engine::Vector}));
  EXPECT_EQ(place({add, rsqrt}).allowed, trn::engine_set({trn::Engine::GpSimd, trn::Engine::Scalar}));
  EXPECT_EQ(trn::unary_alu_row(U::Exp), nullptr);
  // The cost model asks with what the trace records: the operator's name alone places the same.
  EXPECT_EQ(trn::alu_placement(trn::AluForm::TensorScalar, {trn::AluOp::Reciprocal}, false).allowed,
            trn::engine_set({trn::Engine::Vector, trn::Engine::Scalar}));
  EXPECT_EQ(trn::alu_placement(trn::AluForm::TensorScalar, {trn::AluOp::Add, trn::AluOp::Rsqrt}, false).allowed,
            trn::engine_set({trn::Engine::GpSimd, trn::Engine::Scalar}));
  EXPECT_EQ(trn::alu_of(U::Abs), trn::AluOp::Abs);
  EXPECT_EQ(trn::unary_of(trn::AluOp::Abs), U::Abs);
  EXPECT_EQ(trn::alu_of(U::Exp), trn::AluOp::Other);
}

// The error the interpreter's engine check raises tracing `text` on two inputs of `dtype`; none
// when it runs.
std::optional<nki::NkiError> refusal(const char* text, const std::string& dtype) {
  nki::lib::testing::Harness h;
  trn::TraceBuffer trace;
  try {
    h.run_module(*h.load_text("refuse.py", text), {input_of(dtype), input_of(dtype)}, false, &trace);
  } catch (const nki::NkiError& e) {
    return e;
  }
  return std::nullopt;
}

TEST(AluEngineTable, TheCheckRefusesASubtractTensorScalarOnTheScalarEngine) {
  const char* text = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    s = nisa.tensor_scalar(x, np.subtract, 1.0, engine=nisa.scalar_engine)
    t = nisa.tensor_scalar(s, np.multiply, 2.0, op1=np.add, operand1=1.0, engine=nisa.scalar_engine)
    nl.store(out, value=t)
    return out
)";
  auto e = refusal(text, "float32");
  ASSERT_TRUE(e) << "a subtract tensor_scalar ran on the Scalar Engine";
  EXPECT_EQ(e->diag.kind, nki::ErrorKind::Rule);
  EXPECT_EQ(e->diag.loc.line, 11u) << e->what();
  EXPECT_NE(std::string(e->what()).find("other than multiply-then-add, multiply or add"), std::string::npos)
      << e->what();
}

// The check refuses an engine= the table does not allow, naming the operation.
TEST(AluEngineTable, TheCheckRefusesAnEngineTheTableDoesNotAllow) {
  const char* text = R"(import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    s = nisa.tensor_tensor(x, y, op=nl.add, engine=nisa.vector_engine)
    nl.store(out, value=s)
    return out
)";
  auto e = refusal(text, "int32");
  ASSERT_TRUE(e) << "an int32 add on the Vector Engine ran";
  EXPECT_EQ(e->diag.kind, nki::ErrorKind::Rule);
  EXPECT_NE(std::string(e->what()).find("GpSimd Engine only, not on the Vector Engine"), std::string::npos) << e->what();
}

}  // namespace

namespace {

// nl.add of a [P, F] tile and a [1, F] row broadcasts the row over the partitions (nki-language.md
// 3.7); nisa.tensor_tensor takes no partition broadcast (8.3, err_num_partition_mismatch). So
// engine_assign, which spells a two-tile nl.* op as nisa.tensor_tensor(..., engine=), is not
// offered for the broadcast pair (it was, and the rewritten kernel raised
// err_num_partition_mismatch), and still is for two tiles of one shape.
TEST(AluEngineTable, APartitionBroadcastPairHasNoTensorTensorSpelling) {
  const std::string text =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n"
      "@nki.jit\ndef kernel(x, row):\n"
      "    out = nl.ndarray((128, 96), dtype=x.dtype, buffer=nl.shared_hbm)\n"
      "    a = nl.load(x)\n"
      "    r = nl.load(row)\n"
      "    b = nl.add(a, r)\n"          // line 10: a [1, 96] row broadcast over 128 partitions
      "    c = nl.multiply(b, a)\n"     // line 11: two [128, 96] tiles
      "    nl.store(out, value=c)\n"
      "    return out\n";
  loopnest::ArgSpec x, row;
  x.shape = {128, 96};
  x.dtype = row.dtype = "float32";
  row.shape = {1, 96};
  loopnest::Kernel k = loopnest::lift_source("k.py", text, {x, row});
  bool same_shape_offered = false;
  for (const auto& site : loopnest::find_sites(k)) {
    const std::string key = site.key();
    if (key.rfind("engine_assign", 0) != 0) continue;
    EXPECT_EQ(key.find("/add#0"), std::string::npos) << key;
    same_shape_offered = same_shape_offered || key.find("/multiply#0") != std::string::npos;
  }
  EXPECT_TRUE(same_shape_offered);
}

}  // namespace
