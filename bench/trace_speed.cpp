// Trace-only throughput of the NKI interpreter + nki library: records (and instructions) per
// second for kernels of >= 100k instructions, run on shape-only inputs with a counting sink.
// Prints the median of 5 runs per kernel. Target: >= 1M records/s (docs/performance/nki.md).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/kernel_runner.h"
#include "nki/lib/modules.h"

namespace nki::lib {
ObjectPtr make_numpy_module(Interpreter& in);
}

namespace {

struct CountingSink : trn::TraceSink {
  uint64_t records = 0, instructions = 0;
  void consume(const trn::Record& r) override {
    ++records;
    instructions += r.kind == trn::RecordKind::Instruction;
  }
};

// Element-wise pipeline over row tiles: 6 instructions per iteration.
const char* kElementwise = R"(
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])
        tb = nl.load(b[i * 128:(i + 1) * 128, :])
        c = nl.add(ta, tb)
        d = nisa.tensor_scalar(data=c, op0=nl.multiply, operand0=0.5)
        e = nisa.activation(op=nl.exp, data=d)
        nl.store(out[i * 128:(i + 1) * 128, :], value=e)
    return out
)";

// Generated-kernel style matmul: block-dim tiles, arange indexing, PSUM += over K, evacuation.
const char* kMatmul = R"(
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def kernel(lhsT, rhs):
    K, M = lhsT.shape
    N = rhs.shape[1]
    out = nl.ndarray((M, N), dtype=np.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lt = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
                rt = nl.ndarray((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
                lt[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(lhsT[128 * k + nl.arange(128)[:, None], 128 * m + nl.arange(128)[None, :]])
                rt[...] = nl.load(rhs[128 * k + nl.arange(128)[:, None], 512 * n + nl.arange(512)[None, :]])
                acc[...] += nisa.nc_matmul(lt, rt)
            res = nl.ndarray((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
            res[...] = nl.copy(acc, dtype=np.float32)
            nl.store(out[128 * m + nl.arange(128)[:, None], 512 * n + nl.arange(512)[None, :]], value=res)
    return out
)";

struct Case {
  const char* name;
  const char* text;
  std::vector<tensor::Shape> inputs;
};

double run_once(const Case& c, CountingSink& sink) {
  nki::Interpreter in;
  nki::lib::install_builtin_modules(in);
  in.register_module("numpy", nki::lib::make_numpy_module);
  auto src = std::make_shared<nki::SourceFile>();
  src->path = std::string(c.name) + ".py";
  src->text = c.text;
  auto mod = in.load_module(src);
  std::vector<nki::Value> args;
  for (auto& s : c.inputs) args.push_back(nki::lib::make_array(tensor::Array::shape_only(s, tensor::DType::Float32)));
  nki::lib::KernelRunOptions opt;
  opt.numerics = false;
  opt.sink = &sink;
  auto t0 = std::chrono::steady_clock::now();
  nki::lib::run_kernel(in, *mod, args, opt);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Usage: bench_trace_speed [reps] [scale]; `scale` divides the problem sizes (for profiling
// under callgrind, e.g. `bench_trace_speed 1 8`).
int main(int argc, char** argv) {
  int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  int64_t scale = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  const Case cases[] = {
      {"elementwise", kElementwise, {{128 * 20000 / scale, 512}, {128 * 20000 / scale, 512}}},
      {"matmul", kMatmul, {{4096, 4096 / scale}, {4096, 8192}}},
  };
  std::printf("%-12s %12s %12s %10s %14s %14s\n", "kernel", "records", "instructions", "median_s", "records/s",
              "instructions/s");
  for (auto& c : cases) {
    std::vector<double> times;
    CountingSink last;
    for (int rep = 0; rep < reps; ++rep) {
      CountingSink sink;
      times.push_back(run_once(c, sink));
      last = sink;
    }
    std::sort(times.begin(), times.end());
    double med = times[times.size() / 2];
    std::printf("%-12s %12llu %12llu %10.3f %14.0f %14.0f\n", c.name, (unsigned long long)last.records,
                (unsigned long long)last.instructions, med, double(last.records) / med, double(last.instructions) / med);
  }
  return 0;
}
