import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # exp(x) in 8 row tiles, the last one cut to its 104 rows by `mask=(r * 128 + ip < R)` on the
  # partition dim. Same work as ragrows_min.py, which cuts it with `min()`.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  ip, jf = nl.mgrid[0:128, 0:512]
  for r in nl.affine_range((R + 127) // 128):
    t = nl.load(x[r * 128 + ip, jf], mask=(r * 128 + ip < R))
    y = nl.exp(t, mask=(r * 128 + ip < R))
    nl.store(out[r * 128 + ip, jf], value=y, mask=(r * 128 + ip < R))
  return out
