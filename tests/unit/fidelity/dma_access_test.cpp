// Element-granular DMA end to end, from the access pattern the interpreter reads off the NKI
// source to the DMA cost (docs/simulator.md "DMA", descriptors): a store whose innermost HBM
// stride crosses rows (each element of a partition lands 512 B from the previous one, a
// transposing `nl.store`) moves one descriptor per element. Issue 11 found such stores charged
// tens of microseconds where the device's whole kernel takes 0.5 ms; the documented mechanism
// (one DMA buffer per contiguous chunk, ARCH2; descriptors spread over the 16 engines) makes a
// [128 x 512] tile cost microseconds, and per element rather than per byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "eval/profile_run.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kKernel = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  rows, cols = x.shape
  ip = nl.arange(rows)[:, None]
  jf = nl.arange(cols)[None, :]
  tile = nl.load(x[ip, jf])
  if TRANSPOSED:
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out[jf, ip], value=tile)
  else:
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out[ip, jf], value=tile)
  return out
)";

constexpr const char* kReference = R"(import numpy as np

COLS = 512
DTYPE = np.float32


def get_inputs():
    return [np.random.normal(size=(128, COLS)).astype(DTYPE)]


def forward(x):
    return x


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
)";

// Simulated latency (us) of loading a [128 x 512] tile and storing it plainly or transposed.
double store_us(bool transposed, const char* dtype) {
  fs::path dir = fs::temp_directory_path() / fmt::format("accelopt_dma_access_{}", ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.py") << "TRANSPOSED = " << (transposed ? "True" : "False") << "\n" << kKernel;
  std::ofstream(dir / "ref.py") << kReference << "DTYPE = np." << dtype << "\n";
  eval::TraceRequest req = eval::trace_request_from_files((dir / "ref.py").string(), (dir / "kernel.py").string());
  eval::ProfileRun run = eval::profile_kernel(req, "trn1");
  fs::remove_all(dir);
  EXPECT_EQ(run.status, eval::Status::Ok) << (run.diagnostics.empty() ? "" : run.diagnostics.front());
  return run.profile ? run.profile->latency * 1e3 : 0;
}

TEST(DmaAccess, ATransposingStoreCostsMicrosecondsPerElement) {
  const double fp32 = store_us(false, "float32"), fp32_t = store_us(true, "float32");
  const double fp16 = store_us(false, "float16"), fp16_t = store_us(true, "float16");
  fmt::print("[128 x 512] store: fp32 {:.2f} us, transposed {:.2f} us; fp16 {:.2f} us, transposed {:.2f} us\n", fp32,
             fp32_t, fp16, fp16_t);
  // 65,536 one-element descriptors over 16 engines: microseconds, not tens of them.
  EXPECT_GT(fp32_t - fp32, 1.0);
  EXPECT_LT(fp32_t - fp32, 10.0);
  // A contiguous store moves bytes (fp16 is cheaper); an element-wise one pays per element, so
  // 2-byte elements cost about what 4-byte ones do.
  EXPECT_LT(fp16, fp32);
  EXPECT_NEAR((fp16_t - fp16) / (fp32_t - fp32), 1.0, 0.25);
}

}  // namespace
