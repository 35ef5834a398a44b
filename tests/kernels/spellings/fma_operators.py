import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b, c, s):
  # (a * b + c) * 2 / s per row tile spelt with Python operators on tiles. The operators map to the
  # nl APIs (nki-language.md 7.9), which make a tensor_tensor of two tiles and a tensor_scalar of a
  # tile with a scalar or a [P, 1] partition vector (7.3). Same program as fma_isa.py.
  R, C = a.shape
  out = nl.ndarray((R, C), dtype=a.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    at = nl.load(a[r * 128:(r + 1) * 128, :])
    bt = nl.load(b[r * 128:(r + 1) * 128, :])
    ct = nl.load(c[r * 128:(r + 1) * 128, :])
    st = nl.load(s[r * 128:(r + 1) * 128, :])
    z = (at * bt + ct) * 2.0 / st
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
