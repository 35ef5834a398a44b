import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # 2 * x per fp16 row tile spelt `t * 2.0`: a Python float is weakly typed as float32, so the
  # product is a float32 tile ("fp16_tile + 1.2 -> float32", nki-language.md 3.8), converted back
  # to fp16 by the store.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    nl.store(out[r * 128:(r + 1) * 128, :], value=t * 2.0)
  return out
