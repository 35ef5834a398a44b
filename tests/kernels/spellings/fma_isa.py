import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b, c, s):
  # (a * b + c) * 2 / s per row tile spelt as the ISA calls: two `nisa.tensor_tensor` for the tiles,
  # `nisa.tensor_scalar` for the scalar 2 and for the [P, 1] divisor. Same program as
  # fma_operators.py.
  R, C = a.shape
  out = nl.ndarray((R, C), dtype=a.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    at = nl.load(a[r * 128:(r + 1) * 128, :])
    bt = nl.load(b[r * 128:(r + 1) * 128, :])
    ct = nl.load(c[r * 128:(r + 1) * 128, :])
    st = nl.load(s[r * 128:(r + 1) * 128, :])
    p = nisa.tensor_tensor(at, bt, op=nl.multiply)
    q = nisa.tensor_tensor(p, ct, op=nl.add)
    d = nisa.tensor_scalar(q, nl.multiply, 2.0)
    z = nl.divide(d, st)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
