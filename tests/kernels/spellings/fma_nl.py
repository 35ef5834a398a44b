import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b, c, s):
  # (a * b + c) * 2 / s per row tile spelt with the nl APIs (`nl.multiply`, `nl.add`, `nl.divide`).
  # Same program as fma_operators.py and fma_isa.py.
  R, C = a.shape
  out = nl.ndarray((R, C), dtype=a.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    at = nl.load(a[r * 128:(r + 1) * 128, :])
    bt = nl.load(b[r * 128:(r + 1) * 128, :])
    ct = nl.load(c[r * 128:(r + 1) * 128, :])
    st = nl.load(s[r * 128:(r + 1) * 128, :])
    z = nl.divide(nl.multiply(nl.add(nl.multiply(at, bt), ct), 2.0), st)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
