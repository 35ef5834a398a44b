import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # Reverse the partitions of each 32-partition quadrant of every row tile with
  # `nisa.nc_stream_shuffle` into a destination tile allocated per iteration. The same program as
  # shuffle_reused_dst.py, which allocates the destination once outside the loop.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  mask = [31 - i for i in range(32)]
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    dst = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.nc_stream_shuffle(src=t, dst=dst, shuffle_mask=mask)
    nl.store(out[r * 128:(r + 1) * 128, :], value=dst)
  return out
