import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, every access an explicit index expression (`x[r * 128 + ip, jf]`,
  # `xt[ip, jf]`). Same program as expmul_nisa.py, which slices (`x[r * 128:(r + 1) * 128, :]`)
  # and passes whole tiles.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  ip = nl.arange(128)[:, None]
  jf = nl.arange(C)[None, :]
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128 + ip, jf])
    yt = nl.load(y[r * 128 + ip, jf])
    e = nisa.activation(op=nl.exp, data=xt[ip, jf])
    z = nisa.tensor_tensor(e[ip, jf], yt[ip, jf], op=nl.multiply)
    nl.store(out[r * 128 + ip, jf], value=z[ip, jf])
  return out
