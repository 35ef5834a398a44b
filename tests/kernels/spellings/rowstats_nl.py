import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # Per-row max and sum spelt `nl.max(t, axis=1, keepdims=True)` and `nl.sum(t, axis=[1],
  # keepdims=True)`. Same program as rowstats_isa.py: the nl reductions run on the Vector Engine as
  # `nisa.tensor_reduce` (nki-language.md 7.5).
  R, C = x.shape
  out = nl.ndarray((R, 2), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    m = nl.max(t, axis=1, keepdims=True)
    s = nl.sum(t, axis=[1], keepdims=True)
    nl.store(out[r * 128:(r + 1) * 128, 0:1], value=m)
    nl.store(out[r * 128:(r + 1) * 128, 1:2], value=s)
  return out
