import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y (reference tests/kernels/spellings/expmul.ref.py): an affine row loop around a
  # column loop written `range`, which the legacy compiler runs in order. Swapping the two changes
  # which iterations may overlap, not only their order (interchange_loops relieves "serial").
  R, C = x.shape
  W = 128
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    for c in range(C // W):
      xt = nl.load(x[r * 128:(r + 1) * 128, c * W:(c + 1) * W])
      yt = nl.load(y[r * 128:(r + 1) * 128, c * W:(c + 1) * W])
      e = nisa.activation(op=nl.exp, data=xt)
      z = nisa.tensor_tensor(e, yt, op=nl.multiply)
      nl.store(out[r * 128:(r + 1) * 128, c * W:(c + 1) * W], value=z)
  return out
