import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(y):
  # Row sums of squares spelt `nisa.activation(op=nl.square)` then
  # `nisa.tensor_reduce(np.add, ..., axis=(1,))`. Same program as sumsq_nl.py.
  R, C = y.shape
  out = nl.ndarray((R, 1), dtype=y.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(y[r * 128:(r + 1) * 128, :])
    sq = nisa.activation(op=nl.square, data=t)
    s = nisa.tensor_reduce(np.add, sq, axis=(1,), keepdims=True)
    nl.store(out[r * 128:(r + 1) * 128, :], value=s)
  return out
