// Shared by the kernel-pair tests (spelling_pairs_test: one program spelt two ways;
// variant_directions_test: two variants of one computation whose order the documentation gives):
// profile a kernel of a tests/kernels folder against its reference through the compiler stage,
// and check that it computes the reference.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "eval/evaluate.h"
#include "eval/profile_run.h"
#include "support/test_paths.h"

namespace simulated_pair {

namespace fs = std::filesystem;

struct Simulated {
  // vector_scalar_us: VectorE and ScalarE busy time together (the compiler balances movable
  // instructions between the two, so only their sum is a property of the program).
  double latency_us = 0, pe_busy_us = 0, dma_load_us = 0, dma_store_us = 0, vector_scalar_us = 0, scalar_us = 0;
  double vector_us = 0, gpsimd_us = 0;
};

inline double busy_us(const trn::Profile& p, const char* engine) {
  auto e = p.engine_busy_ms.find(engine);
  return e == p.engine_busy_ms.end() ? 0 : e->second * 1e3;
}

// `kernel` against `reference`, both in `dir`, on `arch` with every compiler-stage rule.
inline Simulated simulate(const fs::path& dir, const std::string& reference, const std::string& kernel,
                          const std::string& arch) {
  eval::TraceRequest req = eval::trace_request_from_files((dir / reference).string(), (dir / kernel).string());
  eval::ProfileRun run = eval::profile_kernel(req, arch);
  EXPECT_EQ(run.status, eval::Status::Ok) << kernel << ": " << (run.diagnostics.empty() ? "" : run.diagnostics.front());
  Simulated s;
  if (!run.profile) return s;
  const trn::Profile& p = *run.profile;
  s.latency_us = p.latency * 1e3;
  s.pe_busy_us = busy_us(p, "pe");
  s.dma_load_us = busy_us(p, "dma_load");
  s.dma_store_us = busy_us(p, "dma_store");
  s.vector_us = busy_us(p, "dve");
  s.scalar_us = busy_us(p, "act");
  s.gpsimd_us = busy_us(p, "pool");
  s.vector_scalar_us = s.vector_us + s.scalar_us;
  return s;
}

// The kernel computes the reference (seed 0, numerics on, no profile) within relative L2 `tolerance`.
inline void expect_computes_the_reference(const fs::path& dir, const std::string& reference, const std::string& kernel,
                                          double tolerance = 1e-4) {
  eval::EvalRequest req;
  req.reference_path = (dir / reference).string();
  req.kernel_path = (dir / kernel).string();
  req.seeds = {0};
  req.tolerance = tolerance;
  req.profile = false;
  EXPECT_EQ(eval::evaluate(req).status, eval::Status::Ok) << kernel;
}

}  // namespace simulated_pair
