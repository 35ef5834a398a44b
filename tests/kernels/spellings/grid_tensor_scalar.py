import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # 3 * x + 1 per [128, 512] block, the two scalar operations spelt as the ISA calls
  # (`nisa.tensor_scalar(tile, nl.multiply, 3.0)`, then `nl.add` 1.0). Same program as
  # grid_mgrid.py, which spells them `nl.add(nl.multiply(tile, 3.0), 1.0)`.
  P, T, F = x.shape
  out = nl.ndarray((P, T, F), dtype=x.dtype, buffer=nl.shared_hbm)
  ip, jf = nl.mgrid[0:128, 0:512]
  for t in nl.affine_range(T):
    for c in nl.affine_range(F // 512):
      tile = nl.load(x[ip, t, c * 512 + jf])
      y = nisa.tensor_scalar(nisa.tensor_scalar(tile, nl.multiply, 3.0), nl.add, 1.0)
      nl.store(out[ip, t, c * 512 + jf], value=y)
  return out
