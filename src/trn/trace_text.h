// A line-oriented text form of trace records, for golden tests and hand-written traces.
//
//   # comment
//   arch trn1                                       (optional; read by the golden runner)
//   alloc 3 sbuf name=x blocks=4 partitions=128 bytes=4096 [input] [output] [zero]
//   inst dma_load dma line=7 in hbm:1:128x1024:f32:c4096 out sbuf:3.0:128x1024:f32
//   inst matmul pe acc mm=128,128,512 in sbuf:4:128x128:bf16 sbuf:5:128x512:bf16 out psum:6:128x512:f32
//   loop affine 2 8                                 (loop id, trip count; ignored by the model)
//
// An operand is buffer:tensor[.block]:PARTITIONSxFREE[:dtype][:cBYTES][:dN][:strided] with
// dtype f32 (default), bf16, fp16, fp8, i32, u8. Instruction flags: acc, reduce, line=N,
// mm=K,M,N, flops=N, func=N. Parse errors name the line: "trace:12: unknown opcode 'foo'".
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "trn/trace.h"

namespace trn {

struct TextTrace {
  std::string arch = "trn1";
  std::vector<Record> records;
};

// Throws std::invalid_argument("<source>:<line>: <problem>") on malformed input.
TextTrace parse_trace_text(std::istream& in, const std::string& source = "trace");

std::string format_record(const Record& record);

}  // namespace trn
