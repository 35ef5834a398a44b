#include "bench/peak.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/core.h>

namespace bench {
namespace {

// Trn1: the constants of AccelOpt's calculate_percentage_of_peak.py (per NeuronCore-v2;
// trainium-performance.md §6, nkibench.md).
PeakConstants make_trn1() {
  PeakConstants c;
  c.arch = "trn1";
  c.bandwidth = 410.0 * double(1ull << 30);
  c.vector_flops = 2.0 * 128 * 1.12e9;
  c.matmul_flops = 23.75e12;
  c.description = "trn1 (NeuronCore-v2, AccelOpt's constants): PEAK_BW = 410*2^30 B/s (HBM 820 GB/s per chip, "
                  "2 cores), PEAK_VEC = 2*128*1.12e9 FLOP/s (VectorE + ScalarE lanes at the VectorE clock), "
                  "PEAK_MM = 23.75e12 FLOP/s (fp32 TensorE 47.5 TFLOPS per chip)";
  return c;
}

// Trn2: AccelOpt publishes no Trn2 constants (trainium-performance.md §6: the paper's Trn2 figures
// are not reproducible from its repository), so these are the same three quantities for one
// NeuronCore-v3, taken from trainium-performance.md §1 by the convention of the Trn1 constants:
// - PEAK_BW: the chip's HBM bandwidth shared by its cores, as Trn1's 410 GiB/s is 820 GB/s / 2:
//   2.9 TB/s (TRN2 chip page, §1.1) / 8 NeuronCores = 362.5 GB/s. (Not the 435 GB/s
//   dma_ddr_bandwidth of one core's 16 DMA engines, trainium-measurements.md §2.6, nor one HBM
//   stack, ~725 GB/s shared by two cores.)
// - PEAK_VEC: VectorE plus ScalarE FP32 elements per cycle at the VectorE clock, as Trn1's
//   2 * 128 * 1.12e9: NC-v3 VectorE 256 FP32 elements/cycle (512 for BF16/FP16) and ScalarE 128
//   lanes, VectorE 0.96 GHz (§1.2, ARCH3).
// - PEAK_MM: the chip's dense FP32 TensorE rate per core, as Trn1's 23.75e12 is 47.5 TFLOPS / 2:
//   181 TFLOPS (TRN2, §1.1) / 8 = 22.625e12. (ARCH3 states 20 TFLOPS per core and 128*128*2*2.4 GHz
//   / 4 = 19.66e12; the chip figure keeps the ratio to Trn1's constant comparable.)
PeakConstants make_trn2() {
  PeakConstants c;
  c.arch = "trn2";
  c.bandwidth = 2.9e12 / 8;
  c.vector_flops = (256.0 + 128.0) * 0.96e9;
  c.matmul_flops = 181e12 / 8;
  c.description = "trn2 (NeuronCore-v3, per-core shares of the chip figures as for trn1): PEAK_BW = 2.9e12/8 B/s "
                  "(HBM 2.9 TB/s per chip, 8 cores), PEAK_VEC = (256+128)*0.96e9 FLOP/s (VectorE 256 + ScalarE 128 "
                  "fp32 lanes at the VectorE clock), PEAK_MM = 181e12/8 FLOP/s (fp32 TensorE 181 TFLOPS per chip)";
  return c;
}

struct Work {
  double vector = 0, matmul = 0, bytes = 0;
};

// Reads the values a formula needs; a missing one is an input error naming the task.
class Values {
 public:
  Values(std::string_view task, const TaskValues& values) : task_(task), values_(values) {}
  double operator()(std::string_view name) const {
    auto it = values_.find(name);
    if (it == values_.end())
      throw std::invalid_argument(fmt::format("task '{}': the peak formula needs value '{}'", task_, name));
    return double(it->second);
  }

 private:
  std::string_view task_;
  const TaskValues& values_;
};

using Formula = std::function<Work(const Values&)>;

Work plain_matmul(const Values& v) {
  double m = v("M"), n = v("N"), k = v("K");
  return {0, 2 * m * n * k, 4 * (m * n + n * k + m * k)};
}

// One row per task, exactly the table of nkibench.md.
const std::map<std::string, Formula, std::less<>>& formulas() {
  static const std::map<std::string, Formula, std::less<>> table = {
      {"matmul", plain_matmul},
      {"transpose_matmul", plain_matmul},
      {"bmm",
       [](const Values& v) {
         double b = v("B"), m = v("M"), n = v("N"), k = v("K");
         return Work{0, 2 * b * m * n * k, 4 * (b * m * n + b * n * k + b * m * k)};
       }},
      {"bmm_softmax",
       [](const Values& v) {
         double b = v("B"), m = v("M"), n = v("N"), k = v("K");
         return Work{5 * b * m * n, 2 * b * m * n * k, 4 * (b * m * n + b * n * k + b * m * k)};
       }},
      {"lora",
       [](const Values& v) {
         double m = v("M"), n = v("N"), k = v("K"), r = v("R");
         return Work{m * n, 2 * m * n * k + 2 * m * k * r + 2 * m * n * r,
                     4 * (m * k + k * n + k * r + r * n) + 4 * m * n};
       }},
      {"swiglu",
       [](const Values& v) {
         double m = v("M"), n = v("N"), k = v("K");
         return Work{5 * m * n, 6 * m * k * n, 4 * (2 * m * k + 3 * k * n)};
       }},
      {"rmsnorm_matmul",
       [](const Values& v) {
         double m = v("M"), n = v("N"), k = v("K");
         return Work{4 * m * k, 2 * m * n * k, 4 * (m * k + k * n + m * n)};
       }},
      {"add_rmsnorm_matmul",
       [](const Values& v) {
         double m = v("M"), n = v("N"), k = v("K");
         return Work{6 * m * k, 2 * m * n * k, 4 * (2 * m * k + k * n + k + m * n)};
       }},
      {"matmul_add_rmsnorm",
       [](const Values& v) {
         double m = v("M"), n = v("N"), k = v("K");
         return Work{6 * m * n, 2 * m * n * k, 4 * (m * k + n * k + 2 * m * n + n)};
       }},
      {"gqa_full",
       [](const Values& v) {
         double b = v("B"), n = v("N"), qh = v("QH"), kh = v("KH"), d = v("D");
         return Work{5 * b * qh * n * n, 4 * b * qh * n * n * d, 4 * (2 * b * qh * n * d + 2 * b * kh * n * d)};
       }},
      {"rope_single_freq_apply",
       [](const Values& v) {
         double b = v("B"), h = v("H"), n = v("N"), d = v("D");
         return Work{3 * b * h * n * d, 0, 12 * b * h * n * d};
       }},
      {"silu",
       [](const Values& v) {
         double m = v("M"), n = v("N");
         return Work{3 * m * n, 0, 8 * m * n};
       }},
      {"adamw",
       [](const Values& v) {
         double m = v("M"), n = v("N");
         return Work{7 * m * n, 0, 20 * m * n};
       }},
      {"mamba",
       [](const Values& v) {
         double m = v("M"), c = v("C"), s = v("S");
         return Work{8 * m * c * s, 0, 4 * (2 * c * m + c * s + 2 * s * m + c * m)};
       }},
  };
  return table;
}

}  // namespace

const PeakConstants& peak_constants(std::string_view arch) {
  static const PeakConstants trn1 = make_trn1();
  static const PeakConstants trn2 = make_trn2();
  if (arch == "trn1") return trn1;
  if (arch == "trn2") return trn2;
  throw std::invalid_argument(fmt::format("unknown arch '{}' (expected trn1 or trn2)", arch));
}

bool has_peak_formula(std::string_view task) { return formulas().count(task) > 0; }

PeakEstimate estimate_peak(std::string_view task, const TaskValues& values, const PeakConstants& peak) {
  auto it = formulas().find(task);
  if (it == formulas().end())
    throw std::invalid_argument(fmt::format("task '{}' has no peak formula", task));
  Work work = it->second(Values(task, values));
  PeakEstimate e;
  e.vector_flops = work.vector;
  e.matmul_flops = work.matmul;
  e.bytes = work.bytes;
  e.vector_ms = work.vector / peak.vector_flops * 1e3;
  e.matmul_ms = work.matmul / peak.matmul_flops * 1e3;
  e.memory_ms = work.bytes / peak.bandwidth * 1e3;
  // Ties resolve in the order of the published script's dictionary (vector, matmul, memory).
  e.latency_ms = e.vector_ms;
  e.bound = "vector";
  if (e.matmul_ms > e.latency_ms) e.latency_ms = e.matmul_ms, e.bound = "matmul";
  if (e.memory_ms > e.latency_ms) e.latency_ms = e.memory_ms, e.bound = "memory";
  return e;
}

}  // namespace bench
