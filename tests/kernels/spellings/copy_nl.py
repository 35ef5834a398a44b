import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # exp(x) per row tile, the result copied once with `nl.copy`. Same program as copy_isa.py
  # (`nisa.tensor_copy`): nl.copy is "a copy instruction whose engine the compiler picks"
  # (nki-language.md 7.1).
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    e = nl.exp(t)
    c = nl.copy(e)
    nl.store(out[r * 128:(r + 1) * 128, :], value=c)
  return out
