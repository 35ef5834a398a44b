import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the rows addressed by `nl.ds(r * 128, 128)`. Same program as
  # expmul_nisa.py, which slices them (`x[r * 128:(r + 1) * 128, :]`).
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[nl.ds(r * 128, 128), :])
    yt = nl.load(y[nl.ds(r * 128, 128), :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nl.store(out[nl.ds(r * 128, 128), :], value=z)
  return out
