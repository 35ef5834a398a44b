// Shared by the simulator tests: the trn1 configuration and records built with TraceBuilder.
#pragma once

#include <functional>
#include <vector>

#include "trn/arch_config.h"
#include "trn/trace_builder.h"

namespace trn_test {

inline const trn::ArchConfig& trn1() { return trn::arch_config("trn1"); }

inline std::vector<trn::Record> build(const std::function<void(trn::TraceBuilder&)>& body) {
  trn::TraceBuffer buffer;
  trn::TraceBuilder b(buffer);
  body(b);
  return buffer.records;
}

}  // namespace trn_test
