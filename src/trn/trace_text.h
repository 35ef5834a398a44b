// The one text form of trace records: what `accelopt trace` prints, the golden files of
// tests/golden/trace and tests/golden/trn, hand-written traces. format_trace's output parses back
// to the same records (tests/unit/nkilib/trace_golden_test.cpp checks it on every golden kernel).
//
//   # comment                                       (also after a record: "inst ... # note")
//   arch trn1                                       (optional; read by the golden runner)
//   kernel skip_middle_end_transformations          (kernel attributes)
//   alloc 3 sbuf name=x blocks=4 partitions=128 bytes=4096 [input] [output] [zero] [line=N]
//   inst dma_load dma line=7 in hbm:1:128x1024:f32:c4096:r1024 out sbuf:3.0:128x1024:f32
//   inst matmul pe acc mm=128,128,512 in sbuf:4:128x128:bf16 sbuf:5:128x512:bf16 out psum:6:128x512:f32
//   loop begin affine_range 2 8 [line=N]            (loop id, trip count)
//   loop iter 2 0                                   (loop id, iteration)
//   loop end 2
//
// An operand is buffer:tensor[.block]:PARTITIONSxFREE followed by optional modifiers: a dtype
// (f32 default, bf16, fp16, fp8, i32, u8), cBYTES (contiguous bytes per row), dN (descriptors),
// strided, indirect (HBM rows read from an index tile), sN (first partition), oN (offset of the first element), rN (HBM row stride), pN
// (pitch between contiguous runs), eN (extent of a row); offsets and strides are in elements.
// Instruction flags: acc, reduce, user (engine chosen by the user), line=N, mm=K,M,N, flops=N,
// func=N, alu=add|subtract|multiply|max|min|other|power|bitwise, salu= (scalar_tensor_tensor's op0, the
// same names). Loop kinds: affine_range, sequential_range, static_range, range. Parse errors name the line: "trace:12: unknown opcode 'foo'".
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

// One line per record, stable across runs (no pointers, no times).
std::string format_record(const Record& record);
std::string format_trace(const std::vector<Record>& records);  // one format_record line each

}  // namespace trn
