// An instruction's result assigned into a tile is written there directly, as the compiler does,
// whichever of its library call's instructions produced it: `t[...] = nisa.activation_reduce(...)`
// (whose call also reads the accumulator into reduce_res after the activation) traces the same
// instructions as `probs = nisa.activation_reduce(...)` and as the destination-first
// `nisa.activation_reduce(dst=t[...], ...)`, with no copy. Checked on several ops, each in the
// three styles (value bound to a name, assigned into a declared tile, destination-first), on the
// trace and on the numbers.
#include <algorithm>
#include <set>

#include "kernel_harness.h"
#include "trn/trace.h"

namespace nki::lib {
namespace {

using testing::Harness;

struct Traced {
  std::vector<trn::Record> records;
  tensor::Array out;
  uint64_t untraced_instructions = 0;
};

Traced run(const std::string& body) {
  std::string text =
      "import numpy as np\n"
      "import neuronxcc.nki as nki\n"
      "import neuronxcc.nki.language as nl\n"
      "import neuronxcc.nki.isa as nisa\n"
      "@nki.jit\n"
      "def kernel(x):\n"
      "    out = nl.ndarray((128, 513), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    xt = nl.load(x)\n"
      "    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    t = nl.ndarray((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)\n" +
      body +
      "    nl.store(out[:, 0:512], value=y)\n"
      "    nl.store(out[:, 512:513], value=s)\n"
      "    return out\n";
  Traced r;
  tensor::Array x = testing::test_input({128, 512}, 3);
  {
    Harness h;
    auto mod = h.load_text("k.py", text);
    trn::TraceBuffer buffer;
    auto res = h.run_module(*mod, {x}, true, &buffer);
    r.records = std::move(buffer.records);
    r.out = res.outputs.at(0);
  }
  Harness h;
  auto mod = h.load_text("k.py", text);
  r.untraced_instructions = h.run_module(*mod, {x}, true, nullptr).instructions;
  return r;
}

std::vector<std::string> opcodes(const Traced& r) {
  std::vector<std::string> out;
  for (const auto& rec : r.records)
    if (rec.kind == trn::RecordKind::Instruction)
      out.push_back(std::string(trn::to_string(rec.inst.opcode)) + "@" + trn::to_string(rec.inst.engine));
  return out;
}

// Every tensor an instruction reads or writes was allocated (no operand names a tile whose
// writer was retargeted away).
void expect_every_operand_allocated(const Traced& r, const std::string& what) {
  std::set<uint32_t> allocated;
  for (const auto& rec : r.records) {
    if (rec.kind == trn::RecordKind::Alloc) allocated.insert(rec.alloc.tensor_id);
    if (rec.kind != trn::RecordKind::Instruction) continue;
    for (const auto* ops : {&rec.inst.inputs, &rec.inst.outputs})
      for (const auto& op : *ops)
        EXPECT_TRUE(allocated.count(op.tensor_id)) << what << ": tensor " << op.tensor_id << " has no Alloc";
  }
}

struct Case {
  const char* name;
  const char* bound;        // y = <call>
  const char* assigned;     // t[1] = <call>; y = t[1]
  const char* destination;  // <call>(dst=t[1]); y = t[1]
};

const Case kCases[] = {
    {"activation_reduce",
     "    y = nisa.activation_reduce(op=nl.exp, data=xt, reduce_op=nl.add, reduce_res=s, bias=None, scale=0.5)\n",
     "    t[1] = nisa.activation_reduce(op=nl.exp, data=xt, reduce_op=nl.add, reduce_res=s, scale=0.5)\n"
     "    y = t[1]\n",
     "    nisa.activation_reduce(dst=t[1], op=nl.exp, data=xt, reduce_op=nl.add, reduce_res=s, scale=0.5)\n"
     "    y = t[1]\n"},
    {"activation_with_reduce_res",
     "    y = nisa.activation(op=nl.tanh, data=xt, reduce_op=nl.add, reduce_res=s)\n",
     "    t[1, :, :] = nisa.activation(op=nl.tanh, data=xt, reduce_op=nl.add, reduce_res=s)\n"
     "    y = t[1, :, :]\n",
     "    nisa.activation(dst=t[1, :, :], op=nl.tanh, data=xt, reduce_op=nl.add, reduce_res=s)\n"
     "    y = t[1, :, :]\n"},
    {"tensor_scalar_reduce",
     "    y = nisa.tensor_scalar_reduce(data=xt, op0=np.multiply, operand0=2.0, reduce_op=np.max, reduce_res=s)\n",
     "    t[1] = nisa.tensor_scalar_reduce(data=xt, op0=np.multiply, operand0=2.0, reduce_op=np.max, reduce_res=s)\n"
     "    y = t[1]\n",
     "    nisa.tensor_scalar_reduce(dst=t[1], data=xt, op0=np.multiply, operand0=2.0, reduce_op=np.max, "
     "reduce_res=s)\n"
     "    y = t[1]\n"},
    {"select_reduce",
     "    y = nisa.select_reduce(predicate=xt, on_true=xt, on_false=0.0, reduce_res=s, reduce_op=np.max)\n",
     "    t[1] = nisa.select_reduce(predicate=xt, on_true=xt, on_false=0.0, reduce_res=s, reduce_op=np.max)\n"
     "    y = t[1]\n",
     "    nisa.select_reduce(dst=t[1], predicate=xt, on_true=xt, on_false=0.0, reduce_res=s, reduce_op=np.max)\n"
     "    y = t[1]\n"},
    {"activation",
     "    y = nisa.activation(op=nl.exp, data=xt)\n"
     "    s[...] = nisa.tensor_reduce(np.add, data=y, axis=[1], keepdims=True)\n",
     "    t[1] = nisa.activation(op=nl.exp, data=xt)\n"
     "    y = t[1]\n"
     "    s[...] = nisa.tensor_reduce(np.add, data=y, axis=[1], keepdims=True)\n",
     "    nisa.activation(dst=t[1], op=nl.exp, data=xt)\n"
     "    y = t[1]\n"
     "    s[...] = nisa.tensor_reduce(np.add, data=y, axis=[1], keepdims=True)\n"},
};

TEST(AssignRetarget, AnIsaResultAssignedIntoATileIsWrittenThereInEveryStyle) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Traced bound = run(c.bound), assigned = run(c.assigned), destination = run(c.destination);
    auto ops = opcodes(bound);
    for (const auto& op : ops) EXPECT_EQ(op.rfind("tensor_copy@dve", 0), std::string::npos) << op;
    EXPECT_EQ(opcodes(assigned), ops);
    EXPECT_EQ(opcodes(destination), ops);
    // The same count without a trace.
    EXPECT_EQ(assigned.untraced_instructions, bound.untraced_instructions);
    EXPECT_EQ(destination.untraced_instructions, bound.untraced_instructions);
    // The same numbers, and every operand names an allocated tensor.
    for (const Traced* r : {&assigned, &destination}) {
      ASSERT_EQ(r->out.shape(), bound.out.shape());
      testing::expect_all(r->out, [&](int64_t i, int64_t j) { return testing::at(bound.out, i, j); }, 0.0);
      expect_every_operand_allocated(*r, c.name);
    }
    expect_every_operand_allocated(bound, c.name);
  }
}

// activation_reduce is one ScalarE instruction (activation + ActReadAccumulator, one ISA cost)
// writing its result and reduce_res: assigned into t[1] it writes t[1] directly.
TEST(AssignRetarget, ActivationReduceWritesBothOutputsFromOneInstruction) {
  Traced r = run(
      "    t[1] = nisa.activation_reduce(op=np.exp, data=xt, reduce_op=np.add, reduce_res=s)\n"
      "    y = t[1]\n");
  std::vector<const trn::InstructionInfo*> insts;
  for (const auto& rec : r.records)
    if (rec.kind == trn::RecordKind::Instruction && rec.inst.engine != trn::Engine::Dma) insts.push_back(&rec.inst);
  ASSERT_EQ(insts.size(), 1u);
  const trn::InstructionInfo& inst = *insts[0];
  EXPECT_EQ(inst.opcode, trn::Opcode::Activation);
  EXPECT_EQ(inst.engine, trn::Engine::Scalar);
  EXPECT_TRUE(inst.has_reduce);
  ASSERT_EQ(inst.outputs.size(), 2u);
  EXPECT_EQ(inst.outputs[0].free_elements, 1u);  // reduce_res s
  EXPECT_EQ(inst.outputs[1].block, 1u);          // t[1]
  EXPECT_EQ(inst.outputs[1].free_elements, 512u);
}

// nisa.tensor_scalar_reduce is one instruction writing its result and reduce_res (ISA: one
// cost): assigned into t[1] it writes t[1] directly, and reduce_res keeps its own tile.
TEST(AssignRetarget, TensorScalarReduceWritesBothOutputsFromOneInstruction) {
  Traced r = run(
      "    t[1] = nisa.tensor_scalar_reduce(data=xt, op0=np.multiply, operand0=2.0, reduce_op=np.max, reduce_res=s)\n"
      "    y = t[1]\n");
  std::vector<const trn::InstructionInfo*> insts;
  for (const auto& rec : r.records)
    if (rec.kind == trn::RecordKind::Instruction && rec.inst.engine != trn::Engine::Dma) insts.push_back(&rec.inst);
  ASSERT_EQ(insts.size(), 1u);
  const trn::InstructionInfo& inst = *insts[0];
  EXPECT_EQ(inst.opcode, trn::Opcode::TensorScalar);
  EXPECT_TRUE(inst.has_reduce);
  ASSERT_EQ(inst.outputs.size(), 2u);
  EXPECT_EQ(inst.outputs[0].free_elements, 1u);    // reduce_res s
  EXPECT_EQ(inst.outputs[1].block, 1u);            // t[1]
  EXPECT_EQ(inst.outputs[1].free_elements, 512u);
  EXPECT_NE(inst.outputs[0].tensor_id, inst.outputs[1].tensor_id);
}

// An operator's result is retargeted only while nothing else ran: `t[1] = a * 2` still writes
// t[1] directly, but a value computed by an earlier statement is copied.
TEST(AssignRetarget, AValueOfAnEarlierStatementIsCopied) {
  Traced direct = run("    t[1] = xt * 2.0\n    y = t[1]\n");
  Traced later = run("    z = xt * 2.0\n    w = nl.exp(xt)\n    t[1] = z\n    y = t[1]\n");
  auto count = [](const Traced& r, const std::string& op) {
    auto ops = opcodes(r);
    return std::count(ops.begin(), ops.end(), op);
  };
  EXPECT_EQ(count(direct, "tensor_copy@dve"), 0);
  EXPECT_EQ(count(later, "tensor_copy@dve"), 1);
  expect_every_operand_allocated(later, "later");
}

}  // namespace
}  // namespace nki::lib
