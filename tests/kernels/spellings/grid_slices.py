import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # 3 * x + 1 per [128, 512] block, the blocks addressed by slices (`x[:, t, c * 512:(c + 1) *
  # 512]`). Same program as grid_mgrid.py, which addresses them by index grids.
  P, T, F = x.shape
  out = nl.ndarray((P, T, F), dtype=x.dtype, buffer=nl.shared_hbm)
  for t in nl.affine_range(T):
    for c in nl.affine_range(F // 512):
      tile = nl.load(x[:, t, c * 512:(c + 1) * 512])
      y = nl.add(nl.multiply(tile, 3.0), 1.0)
      nl.store(out[:, t, c * 512:(c + 1) * 512], value=y)
  return out
