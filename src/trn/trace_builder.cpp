#include "trn/trace_builder.h"

namespace trn {

uint32_t TraceBuilder::alloc(BufferKind buffer, const std::string& name, uint16_t partitions,
                             uint64_t bytes_per_partition, uint32_t blocks, bool input, bool output) {
  Record r;
  r.kind = RecordKind::Alloc;
  r.alloc.tensor_id = next_tensor_++;
  r.alloc.buffer = buffer;
  r.alloc.blocks = blocks;
  r.alloc.partitions = partitions;
  r.alloc.bytes_per_partition = bytes_per_partition;
  r.alloc.is_kernel_input = input;
  r.alloc.is_kernel_output = output;
  r.alloc.name = name;
  emit(r);
  return r.alloc.tensor_id;
}

uint32_t TraceBuilder::hbm(const std::string& name, uint64_t bytes, bool input, bool output) {
  return alloc(BufferKind::Hbm, name, 1, bytes, 1, input, output);
}

uint32_t TraceBuilder::sbuf(const std::string& name, uint16_t partitions,
                            uint64_t bytes_per_partition, uint32_t blocks) {
  return alloc(BufferKind::Sbuf, name, partitions, bytes_per_partition, blocks, false, false);
}

uint32_t TraceBuilder::psum(const std::string& name, uint16_t partitions,
                            uint64_t bytes_per_partition, uint32_t blocks) {
  return alloc(BufferKind::Psum, name, partitions, bytes_per_partition, blocks, false, false);
}

Operand TraceBuilder::tile(uint32_t tensor, uint32_t block, uint16_t partitions, uint32_t free,
                           uint8_t dtype_bytes) const {
  Operand op;
  op.buffer = BufferKind::Sbuf;
  op.tensor_id = tensor;
  op.block = block;
  op.partitions = partitions;
  op.free_elements = free;
  op.dtype_bytes = dtype_bytes;
  op.fp32 = dtype_bytes == 4;
  op.contiguous_bytes = free * dtype_bytes;
  return op;
}

Operand TraceBuilder::psum_tile(uint32_t tensor, uint32_t block, uint16_t partitions,
                                uint32_t free) const {
  Operand op = tile(tensor, block, partitions, free);
  op.buffer = BufferKind::Psum;
  return op;
}

Operand TraceBuilder::hbm_rows(uint32_t tensor, uint16_t rows, uint32_t cols, uint8_t dtype_bytes) const {
  Operand op = tile(tensor, 0, rows, cols, dtype_bytes);
  op.buffer = BufferKind::Hbm;
  op.descriptors = rows;
  return op;
}

void TraceBuilder::load(const Operand& dst, const Operand& src) {
  op(Opcode::DmaLoad, Engine::Dma, {src}, {dst});
}

void TraceBuilder::store(const Operand& dst, const Operand& src) {
  op(Opcode::DmaStore, Engine::Dma, {src}, {dst});
}

void TraceBuilder::matmul(const Operand& out, const Operand& stationary, const Operand& moving,
                          bool accumulate) {
  Record r;
  r.inst.opcode = Opcode::MatMul;
  r.inst.engine = Engine::Tensor;
  r.inst.inputs = {stationary, moving};
  r.inst.outputs = {out};
  r.inst.accumulate = accumulate;
  r.inst.matmul_rows = stationary.partitions;
  r.inst.matmul_stationary_cols = stationary.free_elements;
  r.inst.matmul_moving_cols = moving.free_elements;
  r.inst.flops = 2ull * stationary.partitions * stationary.free_elements * moving.free_elements;
  emit(r);
}

void TraceBuilder::transpose(const Operand& out, const Operand& in) {
  op(Opcode::Transpose, Engine::Tensor, {in}, {out});
}

void TraceBuilder::op(Opcode opcode, Engine engine, std::vector<Operand> inputs,
                      std::vector<Operand> outputs, bool accumulate, bool reduce) {
  Record r;
  r.inst.opcode = opcode;
  r.inst.engine = engine;
  r.inst.inputs = std::move(inputs);
  r.inst.outputs = std::move(outputs);
  r.inst.accumulate = accumulate;
  r.inst.has_reduce = reduce;
  emit(r);
}

void TraceBuilder::loop_begin(LoopKind kind, int64_t trip_count) {
  Record r;
  r.kind = RecordKind::LoopBegin;
  r.loop.kind = kind;
  r.loop.loop_id = next_loop_++;
  r.loop.trip_count = trip_count;
  emit(r);
}

void TraceBuilder::loop_end() {
  Record r;
  r.kind = RecordKind::LoopEnd;
  emit(r);
}

void TraceBuilder::emit(Record& r) {
  r.seq = seq_++;
  r.line = line_;
  if (r.kind == RecordKind::Instruction) ++instructions_;
  sink_.consume(r);
}

}  // namespace trn
