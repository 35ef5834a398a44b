// Simulator speed: simulated instructions per second and peak memory on a long synthetic trace
// streamed into the simulator (records are never stored, as with the NKI library's trace-only
// mode). The builder's own cost is measured separately with a sink that drops the records.
//
//   bench_sim_speed [--tiles N] [--repeats R] [--set NAME=VALUE]  (--set: a simulator parameter, trn::set_parameter)
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fidelity_kernels/synthetic_kernels.h"
#include "trn/simulator.h"

namespace {

class NullSink : public trn::TraceSink {
 public:
  void consume(const trn::Record&) override { ++count; }
  uint64_t count = 0;
};

// Process CPU time: the machine is shared, so wall time mostly measures the other processes.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

// silu-shaped elementwise work repeated: 11 instructions per [128 x 1024] tile.
void long_trace(trn::TraceBuilder& b, int tiles) { fidelity::silu(b, tiles / 7, 7168); }

}  // namespace

int main(int argc, char** argv) {
  int tiles = 200000, repeats = 3;
  trn::ArchConfig arch = trn::arch_config("trn1");
  for (int idx = 1; idx + 1 < argc; idx += 2) {
    std::string arg = argv[idx];
    if (arg == "--tiles") tiles = std::atoi(argv[idx + 1]);
    else if (arg == "--repeats") repeats = std::atoi(argv[idx + 1]);
    else if (arg == "--set") {
      std::string setting = argv[idx + 1];
      size_t eq = setting.find('=');
      if (eq == std::string::npos) {
        fmt::print(stderr, "--set takes NAME=VALUE\n");
        return 2;
      }
      try {
        trn::set_parameter(arch, setting.substr(0, eq), std::atof(setting.c_str() + eq + 1));
      } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "--set {}: {}\n", setting, e.what());
        return 2;
      }
    }
  }
  std::vector<double> build_s, sim_s, build_cpu, sim_cpu;
  uint64_t instructions = 0;
  double latency_ms = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    NullSink null;
    trn::TraceBuilder nb(null);
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    long_trace(nb, tiles);
    build_cpu.push_back(cpu_seconds() - c0);
    build_s.push_back(seconds_since(t0));

    trn::Simulator sim(arch);
    trn::TraceBuilder sb(sim);
    auto t1 = std::chrono::steady_clock::now();
    double c1 = cpu_seconds();
    long_trace(sb, tiles);
    sim.finish();
    sim_cpu.push_back(cpu_seconds() - c1);
    sim_s.push_back(seconds_since(t1));
    instructions = sim.profile().instructions;
    latency_ms = sim.profile().latency;
  }
  double build = median(build_s), total = median(sim_s);
  double build_c = median(build_cpu), total_c = median(sim_cpu);
  fmt::print("instructions {}  simulated latency {:.3f} ms\n", instructions, latency_ms);
  fmt::print("median of {}: build+simulate {:.3f} s wall / {:.3f} s cpu, build only {:.3f} s wall / {:.3f} s cpu\n",
             repeats, total, total_c, build, build_c);
  fmt::print("simulated instructions/s (cpu time, builder excluded): {:.2f} M; wall clock: {:.2f} M\n",
             instructions / std::max(total_c - build_c, 1e-9) / 1e6,
             instructions / std::max(total - build, 1e-9) / 1e6);
  fmt::print("peak RSS {} MB\n", peak_rss_mb());
  return 0;
}
