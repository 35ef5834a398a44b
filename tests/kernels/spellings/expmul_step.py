import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the row loop stepping by 128 (`nl.affine_range(0, R, 128)`, rows
  # `r0:r0 + 128`). Same program as expmul_nisa.py, which counts tiles and scales (`r * 128`).
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r0 in nl.affine_range(0, R, 128):
    xt = nl.load(x[r0:r0 + 128, :])
    yt = nl.load(y[r0:r0 + 128, :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nl.store(out[r0:r0 + 128, :], value=z)
  return out
