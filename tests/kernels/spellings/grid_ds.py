import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # 3 * x + 1 per [128, 512] block, the blocks addressed by `nl.ds(c * 512, 512)`. Same program as
  # grid_offsets.py (index grids with offsets): the same bytes move.
  P, T, F = x.shape
  out = nl.ndarray((P, T, F), dtype=x.dtype, buffer=nl.shared_hbm)
  for t in nl.affine_range(T):
    for c in nl.affine_range(F // 512):
      tile = nl.load(x[:, t, nl.ds(c * 512, 512)])
      y = nl.add(nl.multiply(tile, 3.0), 1.0)
      nl.store(out[:, t, nl.ds(c * 512, 512)], value=y)
  return out
