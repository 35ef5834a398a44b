import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # exp(x) in 22 blocks of 512 columns, the last one ragged: every instruction of a block runs
  # under `mask=(c * 512 + jf < N)`. Same work as ragged_tail.py, which writes the 21 full blocks
  # and the 192-column tail out explicitly.
  P, N = x.shape
  out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
  ip, jf = nl.mgrid[0:128, 0:512]
  for c in nl.affine_range((N + 511) // 512):
    tile = nl.load(x[ip, c * 512 + jf], mask=(c * 512 + jf < N))
    y = nl.exp(tile, mask=(c * 512 + jf < N))
    nl.store(out[ip, c * 512 + jf], value=y, mask=(c * 512 + jf < N))
  return out
