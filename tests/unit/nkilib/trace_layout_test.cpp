// What the trace tells the compiler stage (src/lower) beyond shapes: where each access lies
// (offset, HBM row stride, pitch, extent), the ALU operation of additions, and the
// skip_middle_end_transformations decorator.
#include "kernel_harness.h"

namespace nki::lib {
namespace {

using testing::Harness;

std::vector<trn::Record> trace(const std::string& text, const std::vector<tensor::Shape>& shapes) {
  Harness h;
  auto mod = h.load_text("k.py", text);
  std::vector<tensor::Array> inputs;
  for (const auto& s : shapes) inputs.push_back(tensor::Array::shape_only(s, tensor::DType::Float32));
  trn::TraceBuffer buffer;
  h.run_module(*mod, inputs, false, &buffer);
  return buffer.records;
}

std::vector<trn::InstructionInfo> instructions(const std::vector<trn::Record>& records) {
  std::vector<trn::InstructionInfo> out;
  for (const auto& r : records)
    if (r.kind == trn::RecordKind::Instruction) out.push_back(r.inst);
  return out;
}

const char* kHeader =
    "import neuronxcc.nki as nki\n"
    "import neuronxcc.nki.language as nl\n"
    "import neuronxcc.nki.isa as nisa\n";

TEST(TraceLayout, OperandsCarryOffsetsStridesAndExtents) {
  auto records = trace(std::string(kHeader) +
                           "@nki.jit\n"
                           "def kernel(x):\n"
                           "    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                           "    t = nl.ndarray((128, 4, 16), dtype=nl.float32, buffer=nl.sbuf)\n"
                           "    for i in nl.affine_range(4):\n"
                           "        t[:, i, :] = nl.load(x[:, 16 * i:16 * i + 16])\n"
                           "    c = nl.exp(t[:, :, 3])\n"
                           "    nl.store(out[:, 0:4], value=c)\n"
                           "    return out\n",
                       {{128, 64}});
  auto insts = instructions(records);
  ASSERT_EQ(insts.size(), 6u);
  // The third load: HBM rows of 64 elements, 16 contiguous from column 32; SBUF offset 32.
  const trn::Operand& src = insts[2].inputs[0];
  EXPECT_EQ(src.buffer, trn::BufferKind::Hbm);
  EXPECT_EQ(src.offset, 32);
  EXPECT_EQ(src.row_stride, 64);
  EXPECT_EQ(src.extent, 16u);
  EXPECT_EQ(src.pitch, 0u);
  const trn::Operand& dst = insts[2].outputs[0];
  EXPECT_EQ(dst.offset, 32);
  EXPECT_EQ(dst.row_stride, 0);
  EXPECT_EQ(dst.extent, 16u);
  // Column 3 of each of the 4 rows of 16: runs of one element, 16 apart, spanning 49.
  const trn::Operand& column = insts[4].inputs[0];
  EXPECT_EQ(column.offset, 3);
  EXPECT_EQ(column.free_elements, 4u);
  EXPECT_EQ(column.contiguous_bytes, 4u);
  EXPECT_EQ(column.pitch, 16u);
  EXPECT_EQ(column.extent, 49u);
}

TEST(TraceLayout, AdditionsRecordTheirAluOperation) {
  auto records = trace(std::string(kHeader) +
                           "@nki.jit\n"
                           "def kernel(x):\n"
                           "    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                           "    a = nl.load(x)\n"
                           "    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
                           "    acc += a\n"
                           "    b = nl.multiply(acc, a)\n"
                           "    c = nisa.tensor_tensor(b, a, op=nl.add)\n"
                           "    nl.store(out, value=c)\n"
                           "    return out\n",
                       {{128, 64}});
  std::vector<trn::AluOp> alus;
  for (const auto& inst : instructions(records))
    if (inst.opcode == trn::Opcode::TensorTensor) alus.push_back(inst.alu);
  EXPECT_EQ(alus, (std::vector<trn::AluOp>{trn::AluOp::Add, trn::AluOp::Multiply, trn::AluOp::Add}));
}

TEST(TraceLayout, ScalarTensorTensorIsOneInstructionWithBothOperations) {
  // The ISA prices scalar_tensor_tensor as one Vector Engine instruction; traced as the
  // tensor_scalar and tensor_tensor it computes it cost 3N instead of 2N (fp32).
  auto records = trace(std::string(kHeader) +
                           "@nki.jit\n"
                           "def kernel(x, y):\n"
                           "    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                           "    a = nl.load(x)\n"
                           "    b = nl.load(y)\n"
                           "    c = nisa.scalar_tensor_tensor(data=a, op0=nl.subtract, operand0=1.0, op1=nl.multiply,\n"
                           "                                  operand1=b)\n"
                           "    nl.store(out, value=c)\n"
                           "    return out\n",
                       {{128, 64}, {128, 64}});
  auto insts = instructions(records);
  ASSERT_EQ(insts.size(), 4u);  // two loads, the instruction, the store
  const trn::InstructionInfo& stt = insts[2];
  EXPECT_EQ(stt.opcode, trn::Opcode::ScalarTensorTensor);
  EXPECT_EQ(stt.engine, trn::Engine::Vector);
  EXPECT_EQ(stt.scalar_alu, trn::AluOp::Subtract);
  EXPECT_EQ(stt.alu, trn::AluOp::Multiply);
  EXPECT_EQ(stt.inputs.size(), 2u);  // data and operand1 (operand0 is an immediate)
  EXPECT_EQ(stt.flops, 2u * 128 * 64);
}

TEST(TraceLayout, SkipMiddleEndDecoratorIsAKernelRecord) {
  const std::string body =
      "def kernel(x):\n"
      "    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    nl.store(out, value=nl.load(x))\n"
      "    return out\n";
  for (const char* decorator : {"@nki.compiler.skip_middle_end_transformations\n@nki.jit\n",
                                "@nki.jit\n@nki.compiler.skip_middle_end_transformations()\n"}) {
    auto records = trace(std::string(kHeader) + decorator + body, {{128, 64}});
    int kernels = 0;
    for (const auto& r : records)
      if (r.kind == trn::RecordKind::Kernel) kernels += r.kernel.skip_middle_end_transformations;
    EXPECT_EQ(kernels, 1) << decorator;
  }
  auto plain = trace(std::string(kHeader) + "@nki.jit\n" + body, {{128, 64}});
  for (const auto& r : plain) EXPECT_NE(r.kind, trn::RecordKind::Kernel);
}

}  // namespace
}  // namespace nki::lib
