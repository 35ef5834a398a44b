# SiLU M=4096 N=7168 (FP32, Trn1) as an engineer optimizes it; stands for AccelOpt's best silu
# kernel, whose text is NOT published: only its latency is (best speed-up 1.671 over the 1.333 ms
# baseline = 0.798 ms, trainium-performance.md 3.5; NKIBench results/11110904_best_plan_id.csv).
# What an optimized elementwise kernel does by the published rules, and nothing else: the input
# in the NKIBench layout (128, 32, 7168); [128 x 3584] tiles (14 KiB per partition, ">= 4 KiB
# saturates", DMABW; "> 32 KiB per transfer", PERF Opt #9), one load and one store each; SiLU as
# one ScalarE activation (no VectorE reciprocal). Legacy API, output returned.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_F = 3584


@nki.jit
def silu_optimized(x):
  n_parts, n_rows, n_cols = x.shape
  out = nl.ndarray((n_parts, n_rows, n_cols), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(n_rows):
    for c in nl.affine_range(n_cols // TILE_F):
      x_tile = nl.load(x[:, r, nl.ds(c * TILE_F, TILE_F)])
      y_tile = nisa.activation(op=nl.silu, data=x_tile)
      nl.store(out[:, r, nl.ds(c * TILE_F, TILE_F)], value=y_tile)
  return out
