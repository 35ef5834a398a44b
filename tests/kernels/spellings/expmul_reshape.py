import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the inputs viewed as [R / 128, 128, C] by `reshape` and loaded as
  # `x3[r]`. Same program as expmul_nisa.py, which slices the rows of the 2-D inputs.
  R, C = x.shape
  x3 = x.reshape((R // 128, 128, C))
  y3 = y.reshape((R // 128, 128, C))
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x3[r])
    yt = nl.load(y3[r])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
