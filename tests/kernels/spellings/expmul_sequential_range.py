import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the row loop written `nl.sequential_range`: the spellings of a loop that the
  # language unrolls in program order (expmul_range.py, expmul_static_range.py,
  # expmul_sequential_range.py: LANG, Python `range` becomes `sequential_range`).
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.sequential_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
