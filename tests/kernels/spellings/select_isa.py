import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # x where x > 0 else y per row tile, spelt `nisa.select_reduce(predicate=, on_true=, on_false=)`
  # after a `nisa.tensor_scalar` comparison. Same program as select_where.py.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    p = nisa.tensor_scalar(xt, nl.greater, 0.0, dtype=nl.uint8)
    z = nisa.select_reduce(predicate=p, on_true=xt, on_false=yt)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
