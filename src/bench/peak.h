// The "percentage of peak" model of AccelOpt/NKIBench (nkibench.md, trainium-performance.md §6):
// for a task with vector FLOPs V, matmul FLOPs F and compulsory HBM bytes Y,
//   peak latency = max(V / PEAK_VEC, F / PEAK_MM, Y / PEAK_BW)
// and a kernel's percentage of peak = peak latency / measured latency.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace bench {

// The three peak rates of one NeuronCore, with a human-readable statement of their source.
struct PeakConstants {
  std::string arch;          // "trn1" | "trn2"
  double bandwidth = 0;      // bytes/s
  double vector_flops = 0;   // FLOP/s, Vector + Scalar engines together
  double matmul_flops = 0;   // FLOP/s, fp32 Tensor Engine
  std::string description;   // e.g. "PEAK_BW = 410*2^30 B/s, ..."
};

// Throws std::invalid_argument for an unknown arch.
const PeakConstants& peak_constants(std::string_view arch);

using TaskValues = std::map<std::string, int64_t, std::less<>>;  // "M" -> 4096, ...

struct PeakEstimate {
  double vector_flops = 0, matmul_flops = 0, bytes = 0;
  double vector_ms = 0, matmul_ms = 0, memory_ms = 0;
  double latency_ms = 0;  // the max of the three
  std::string bound;      // "vector" | "matmul" | "memory"
  // The parts no correct kernel beats: its matmul FLOPs at the fp32 Tensor Engine rate and its
  // compulsory bytes at HBM's. The vector part counts one operation per lane-cycle of two engines,
  // which fused instructions (exp with a bias, a row sum inside the activation) and a third engine
  // beat: a softmax reaches 110% of the published peak.
  double firm_latency_ms() const { return std::max(matmul_ms, memory_ms); }
};

// Whether `task` (the summary.json task name, e.g. "bmm_softmax") has a peak formula.
bool has_peak_formula(std::string_view task);

// Evaluates the published formula of `task` on the case's values. Throws std::invalid_argument
// naming the task when it has no formula or when a value the formula needs is missing.
PeakEstimate estimate_peak(std::string_view task, const TaskValues& values, const PeakConstants& peak);

}  // namespace bench
