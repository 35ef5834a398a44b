import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the product spelt `nl.multiply(e, yt)`. Same program as
  # expmul_nisa.py, which spells it `nisa.tensor_tensor(e, yt, op=nl.multiply)`.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nl.multiply(e, yt)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
