import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, y):
  # x where x > 0 else y per row tile, spelt `nl.where(nl.greater(x, 0.0), x, y)`. Same program as
  # select_isa.py (`nisa.select_reduce` without a reduction: "dst = where(predicate, on_true,
  # on_false)", nki-language.md 8.3); nl.where's own page names no instruction.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    z = nl.where(nl.greater(xt, 0.0), xt, yt)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
