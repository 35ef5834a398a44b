// Throughput of the tensor library on the shapes NKI kernels issue (see docs/performance/numerics.md):
//  (a) a kernel-style matmul (matmul_tn_accumulate on 128x128 stationary by 128x512 moving tiles,
//      accumulated over K into a PSUM-like tile) against one plain OpenBLAS sgemm of the same
//      total problem, measured side by side, alternating, in one run;
//  (b) elementwise, reduction and tile load/store throughput on 128x512 float32 tiles;
//  (c) the per-call cost of the same ops on shape-only tiles (trace-only mode).
// Usage: bench_numerics [M N K] [reps]; prints medians.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "tensor/ops.h"
#include "tensor/random.h"

using namespace tensor;

namespace {

// CPU time of this thread: the machine is shared by many processes, and wall time mostly measures
// how often we were descheduled. BLAS runs on this thread (1 BLAS thread), so nothing is missed.
double now_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds for one call of f, median over reps.
double time_median(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int rep = 0; rep < reps; ++rep) {
    double t0 = now_s();
    f();
    t.push_back(now_s() - t0);
  }
  return median(t);
}

Array normal(LegacyRandom& rng, const Shape& shape) { return astype(rng.normal_array(0, 1, shape), DType::Float32); }

// out[m-tile, n-tile] = sum_k A[k-tile, m-tile]^T B[k-tile, n-tile], the way NKI kernels tile a
// matmul: stationary (128, 128), moving (128, 512), fp32 accumulation in a (128, 512) tile, then
// copied out.
void tiled_matmul(const Array& a_km, const Array& b_kn, Array& out) {
  int64_t K = a_km.shape()[0], M = a_km.shape()[1], N = b_kn.shape()[1];
  Array psum = Array::zeros({128, 512}, DType::Float32);
  for (int64_t m0 = 0; m0 < M; m0 += 128) {
    for (int64_t n0 = 0; n0 < N; n0 += 512) {
      for (int64_t k0 = 0; k0 < K; k0 += 128) {
        Array stationary = get_index(a_km, {Slice{k0, k0 + 128, {}}, Slice{m0, m0 + 128, {}}});
        Array moving = get_index(b_kn, {Slice{k0, k0 + 128, {}}, Slice{n0, n0 + 512, {}}});
        matmul_tn_accumulate(stationary, moving, psum, k0 > 0);
      }
      Array dst = get_index(out, {Slice{m0, m0 + 128, {}}, Slice{n0, n0 + 512, {}}});
      assign(dst, psum);
    }
  }
}

void bench_matmul(int64_t M, int64_t N, int64_t K, int reps) {
  LegacyRandom rng(0);
  Array a = normal(rng, {K, M}), b = normal(rng, {K, N});
  Array out = Array::zeros({M, N}, DType::Float32);
  std::vector<double> tiled, plain;
  Array ref;
  for (int rep = 0; rep < reps; ++rep) {  // alternate so both see the same machine load
    double t0 = now_s();
    tiled_matmul(a, b, out);
    tiled.push_back(now_s() - t0);
    t0 = now_s();
    ref = matmul(transpose(a, {}), b);
    plain.push_back(now_s() - t0);
  }
  double flops = 2.0 * M * N * K, t_tiled = median(tiled), t_plain = median(plain);
  std::printf("matmul M=%lld N=%lld K=%lld (%lld tile calls), %d reps, 1 BLAS thread\n", (long long)M, (long long)N,
              (long long)K, (long long)((M / 128) * (N / 512) * (K / 128)), reps);
  std::printf("  plain sgemm          median %8.2f ms  %7.2f GFLOP/s\n", t_plain * 1e3, flops / t_plain * 1e-9);
  std::printf("  matmul_tn_accumulate median %8.2f ms  %7.2f GFLOP/s\n", t_tiled * 1e3, flops / t_tiled * 1e-9);
  std::printf("  tiled / plain throughput ratio: %.3f   (rel. L2 difference %.2e)\n", t_plain / t_tiled,
              relative_l2(out, ref));
}

void report_tile_op(const char* name, int iters, int reps, double bytes_per_call, const std::function<void()>& f) {
  double t = time_median(reps, [&] {
    for (int it = 0; it < iters; ++it) f();
  }) / iters;
  std::printf("  %-34s %9.2f us/call  %7.2f Gelem/s  %7.2f GB/s\n", name, t * 1e6, 128.0 * 512 / t * 1e-9,
              bytes_per_call / t * 1e-9);
}

void bench_tiles(int reps) {
  LegacyRandom rng(1);
  Array x = normal(rng, {128, 512}), y = normal(rng, {128, 512}), col = normal(rng, {128, 1});
  Array s = Array::scalar(DType::Float32, 0.5);
  Array hbm = normal(rng, {4096, 1024});
  Array rows = reshape(arange(1024, 1152, 1, DType::Int32), {128, 1});
  Array cols = reshape(arange(512, 1024, 1, DType::Int32), {1, 512});
  const double tile = 128.0 * 512 * 4;
  const int iters = 200;
  std::printf("128x512 float32 tile ops (%d calls per sample, %d samples, bytes = read + written)\n", iters, reps);
  report_tile_op("binary add (tile, tile)", iters, reps, 3 * tile, [&] { binary(BinaryOp::Add, x, y, DType::Float32, DType::Float32); });
  report_tile_op("binary mul (tile, scalar)", iters, reps, 2 * tile, [&] { binary(BinaryOp::Mul, x, s, DType::Float32, DType::Float32); });
  report_tile_op("binary mul (tile, (128,1) column)", iters, reps, 2 * tile, [&] { binary(BinaryOp::Mul, x, col, DType::Float32, DType::Float32); });
  report_tile_op("binary max (tile, tile)", iters, reps, 3 * tile, [&] { binary(BinaryOp::Maximum, x, y, DType::Float32, DType::Float32); });
  report_tile_op("unary exp", iters, reps, 2 * tile, [&] { unary(UnaryOp::Exp, x, DType::Float32, DType::Float32); });
  report_tile_op("unary reciprocal", iters, reps, 2 * tile, [&] { unary(UnaryOp::Reciprocal, x, DType::Float32, DType::Float32); });
  report_tile_op("reduce sum over free axis", iters, reps, tile, [&] { reduce(ReduceOp::Sum, x, {1}, false, DType::Float32); });
  report_tile_op("load: hbm[arange grid] (gather)", iters, reps, 2 * tile, [&] { get_index(hbm, {rows, cols}); });
  report_tile_op("store: hbm[arange grid] = tile", iters, reps, 2 * tile, [&] { set_index(hbm, {rows, cols}, x); });
  report_tile_op("astype float32 -> bfloat16", iters, reps, 2 * tile, [&] { astype(x, DType::BFloat16); });

  Array xs = Array::shape_only({128, 512}, DType::Float32);
  double t = time_median(reps, [&] {
    for (int it = 0; it < 10 * iters; ++it) binary(BinaryOp::Add, xs, xs, DType::Float32, DType::Float32);
  }) / (10 * iters);
  std::printf("  shape-only binary add (trace-only mode): %.3f us/call\n", t * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t M = 1024, N = 2048, K = 2048;
  int reps = 7;
  if (argc >= 4) {
    M = std::atoll(argv[1]);
    N = std::atoll(argv[2]);
    K = std::atoll(argv[3]);
  }
  if (argc >= 5) reps = std::atoi(argv[4]);
  if (M % 128 || N % 512 || K % 128 || reps < 1) {
    std::fprintf(stderr, "usage: bench_numerics [M N K] [reps]  (M, K multiples of 128, N of 512)\n");
    return 2;
  }
  bench_matmul(M, N, K, reps);
  bench_tiles(reps);
  return 0;
}
