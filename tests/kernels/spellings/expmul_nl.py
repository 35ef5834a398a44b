import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile spelt with the nl math API (`nl.multiply(nl.exp(x), y)`). Same program
  # as expmul_nisa.py, which spells the instructions these calls make.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    z = nl.multiply(nl.exp(xt), yt)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
