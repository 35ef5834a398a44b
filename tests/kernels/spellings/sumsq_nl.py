import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(y):
  # Row sums of squares spelt `nl.sum(nl.square(y), axis=1)`. Same program as sumsq_nisa.py,
  # which spells the instructions these calls make.
  R, C = y.shape
  out = nl.ndarray((R, 1), dtype=y.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(y[r * 128:(r + 1) * 128, :])
    s = nl.sum(nl.square(t), axis=1, keepdims=True)
    nl.store(out[r * 128:(r + 1) * 128, :], value=s)
  return out
