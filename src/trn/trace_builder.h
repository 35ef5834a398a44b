// Builds trace records in C++: the synthetic kernels of tests, bench/sim_speed and bench/fidelity
// (the same record stream the NKI library emits, without running a kernel).
//
//   TraceBuilder b(sink);
//   auto x = b.hbm("x", 128 * 1024 * 4, /*input=*/true);
//   auto t = b.sbuf("t", 128, 4096);
//   b.load(b.tile(t), b.hbm_rows(x, 128, 1024));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trn/trace.h"

namespace trn {

class TraceBuilder {
 public:
  explicit TraceBuilder(TraceSink& sink) : sink_(sink) {}

  // Allocations; return the tensor id.
  uint32_t hbm(const std::string& name, uint64_t bytes, bool input, bool output = false);
  uint32_t sbuf(const std::string& name, uint16_t partitions, uint64_t bytes_per_partition,
                uint32_t blocks = 1);
  uint32_t psum(const std::string& name, uint16_t partitions, uint64_t bytes_per_partition,
                uint32_t blocks = 1);

  // An on-chip access of `free` elements per partition (fp32 unless dtype_bytes says otherwise).
  Operand tile(uint32_t tensor, uint32_t block = 0, uint16_t partitions = 128, uint32_t free = 512,
               uint8_t dtype_bytes = 4) const;
  Operand psum_tile(uint32_t tensor, uint32_t block = 0, uint16_t partitions = 128,
                    uint32_t free = 512) const;
  // An HBM access of `rows` rows of `cols` fp32 elements, each row contiguous.
  Operand hbm_rows(uint32_t tensor, uint16_t rows, uint32_t cols, uint8_t dtype_bytes = 4) const;

  void load(const Operand& dst, const Operand& src);
  void store(const Operand& dst, const Operand& src);
  // out (PSUM) (+)= stationary^T @ moving; K = stationary partitions.
  void matmul(const Operand& out, const Operand& stationary, const Operand& moving, bool accumulate);
  void transpose(const Operand& out, const Operand& in);  // Tensor Engine, identity matmul
  void op(Opcode opcode, Engine engine, std::vector<Operand> inputs, std::vector<Operand> outputs,
          bool accumulate = false, bool reduce = false);
  void loop_begin(LoopKind kind, int64_t trip_count);
  void loop_end();

  void set_line(uint32_t line) { line_ = line; }
  uint64_t instructions() const { return instructions_; }

 private:
  uint32_t alloc(BufferKind buffer, const std::string& name, uint16_t partitions,
                 uint64_t bytes_per_partition, uint32_t blocks, bool input, bool output);
  void emit(Record& r);

  TraceSink& sink_;
  uint32_t next_tensor_ = 1;
  uint32_t next_loop_ = 1;
  uint64_t seq_ = 0;
  uint64_t instructions_ = 0;
  uint32_t line_ = 0;
};

}  // namespace trn
