import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # Row means spelt `nl.mean(t, axis=1, keepdims=True)`.
  R, C = x.shape
  out = nl.ndarray((R, 1), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    m = nl.mean(t, axis=1, keepdims=True)
    nl.store(out[r * 128:(r + 1) * 128, :], value=m)
  return out
