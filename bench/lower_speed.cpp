// Speed of the compiler stage (src/lower) next to the simulator it feeds. For each kernel the
// trace is recorded once (NKI interpreter, trace-only), then, interleaved in one run:
//   simulate        records -> trn::Simulator
//   lower+simulate  records -> lower::Lowering (all rules) -> trn::Simulator
//   lower only      records -> lower::Lowering -> a sink that drops them
// and the end-to-end profile (interpreter + stage + simulator) with --lower none vs all.
// Process CPU time, median of the repeats; the ratio is what the stage adds to profiling.
//
//   bench_lower_speed [--repeats R] [--kernel NAME]
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "eval/profile_run.h"
#include "lower/lowering.h"
#include "nki/lib/array_value.h"
#include "trn/simulator.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct NullSink : trn::TraceSink {
  void consume(const trn::Record&) override { ++count; }
  uint64_t count = 0;
};

struct Kernel {
  std::string name, path;
  std::vector<tensor::Shape> shapes;
};

// The seven calibration kernels (bench/fidelity_kernels) and one loop of tiny instructions.
std::vector<Kernel> kernels() {
  const std::string dir = std::string(ACCELOPT_SOURCE_DIR) + "/bench/fidelity_kernels/";
  return {
      {"silu", dir + "silu.py", {{128, 32, 7168}}},
      {"adamw", dir + "adamw.py", {{10944, 2048}, {10944, 2048}, {10944, 2048}, {10944, 2048}}},
      {"matmul", dir + "matmul.py", {{32, 128, 40, 128}, {40, 128, 12288}}},
      {"rmsnorm_matmul", dir + "rmsnorm_matmul.py", {{32, 128, 1024}, {8, 128, 2048}}},
      {"bmm_softmax", dir + "bmm_softmax.py", {{16, 4096, 64}, {16, 64, 4096}}},
      {"gqa_full", dir + "gqa_full.py", {{32, 128, 16, 128}, {1, 8, 4, 128, 8, 128}, {1, 32, 128, 1024}}},
      {"swiglu", dir + "swiglu.py", {{8, 4, 128, 8, 128}, {8, 128, 3072}, {24, 128, 1024}, {8, 128, 3072}}},
      {"tiny_columns", std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/lower/nki/tiny_columns.py", {{128, 8192}}},
  };
}

eval::TraceRequest request_of(const Kernel& k) {
  eval::TraceRequest request;
  request.kernel_path = k.path;
  std::ifstream in(k.path);
  request.kernel_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  for (const auto& shape : k.shapes)
    request.args.push_back(nki::lib::make_array(tensor::Array::shape_only(shape, tensor::DType::Float32)));
  return request;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::string only;
  for (int idx = 1; idx + 1 < argc; idx += 2) {
    std::string arg = argv[idx];
    if (arg == "--repeats") repeats = std::atoi(argv[idx + 1]);
    else if (arg == "--kernel") only = argv[idx + 1];
  }
  const auto arch = trn::arch_config("trn1");
  const lower::Options all = lower::parse_rules("all"), none = lower::parse_rules("none");
  std::vector<double> sim_total, lowered_total, profile_none_total, profile_all_total;
  fmt::print("{:<15} {:>9} {:>10} {:>12} {:>10} {:>7}  {:>11} {:>11} {:>7}\n", "kernel", "records", "simulate",
             "lower+sim", "lower", "ratio", "profile", "profile+lw", "ratio");
  for (const Kernel& k : kernels()) {
    if (!only.empty() && k.name != only) continue;
    const eval::TraceRequest request = request_of(k);
    trn::TraceBuffer trace;
    eval::TraceRun traced = eval::trace_kernel(request, trace);
    if (traced.status != eval::Status::Ok) {
      for (const auto& d : traced.diagnostics) fmt::print(stderr, "{}\n", d);
      continue;
    }
    std::vector<double> sim_s, lowered_s, lower_s, profile_none_s, profile_all_s;
    for (int rep = 0; rep < repeats; ++rep) {
      double c0 = cpu_seconds();
      trn::simulate(trace.records, arch);
      double c1 = cpu_seconds();
      {
        trn::Simulator sim(arch);
        lower::Lowering stage(sim, all);
        for (const auto& r : trace.records) stage.consume(r);
        stage.finish();
      }
      double c2 = cpu_seconds();
      {
        NullSink null;
        lower::Lowering stage(null, all);
        for (const auto& r : trace.records) stage.consume(r);
        stage.finish();
      }
      double c3 = cpu_seconds();
      eval::profile_kernel(request, "trn1", {.lowering = none});
      double c4 = cpu_seconds();
      eval::profile_kernel(request, "trn1", {.lowering = all});
      double c5 = cpu_seconds();
      sim_s.push_back(c1 - c0);
      lowered_s.push_back(c2 - c1);
      lower_s.push_back(c3 - c2);
      profile_none_s.push_back(c4 - c3);
      profile_all_s.push_back(c5 - c4);
    }
    double s = median(sim_s), ls = median(lowered_s), l = median(lower_s);
    double pn = median(profile_none_s), pa = median(profile_all_s);
    sim_total.push_back(s);
    lowered_total.push_back(ls);
    profile_none_total.push_back(pn);
    profile_all_total.push_back(pa);
    fmt::print("{:<15} {:>9} {:>9.3f}s {:>11.3f}s {:>9.3f}s {:>6.3f}x  {:>10.3f}s {:>10.3f}s {:>6.3f}x\n", k.name,
               trace.records.size(), s, ls, l, ls / s, pn, pa, pa / pn);
  }
  auto sum = [](const std::vector<double>& v) {
    double t = 0;
    for (double x : v) t += x;
    return t;
  };
  if (!sim_total.empty())
    fmt::print("all kernels: lower+simulate / simulate {:.3f}x; profile with / without lowering {:.3f}x "
               "(cpu time, median of {} each)\n",
               sum(lowered_total) / sum(sim_total), sum(profile_all_total) / sum(profile_none_total), repeats);
  return 0;
}
