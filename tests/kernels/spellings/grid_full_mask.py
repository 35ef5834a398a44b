import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # 3 * x + 1 per [128, 512] block under masks that cover the whole tile (`mask=(ip < 128) &
  # (jf < 512)`, true everywhere). Same program as grid_mgrid.py, which has no mask.
  P, T, F = x.shape
  out = nl.ndarray((P, T, F), dtype=x.dtype, buffer=nl.shared_hbm)
  ip, jf = nl.mgrid[0:128, 0:512]
  for t in nl.affine_range(T):
    for c in nl.affine_range(F // 512):
      full = (ip < 128) & (c * 512 + jf < F)
      tile = nl.load(x[ip, t, c * 512 + jf], mask=full)
      y = nl.add(nl.multiply(tile, 3.0, mask=full), 1.0, mask=full)
      nl.store(out[ip, t, c * 512 + jf], value=y, mask=full)
  return out
