import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # Row means spelt as a row sum (`nisa.tensor_reduce(nl.add, ...)`) scaled by 1 / C
  # (`nisa.tensor_scalar`): the ISA has no mean reduction.
  R, C = x.shape
  out = nl.ndarray((R, 1), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    s = nisa.tensor_reduce(nl.add, t, axis=(1,), keepdims=True)
    m = nisa.tensor_scalar(s, nl.multiply, 1.0 / C)
    nl.store(out[r * 128:(r + 1) * 128, :], value=m)
  return out
