import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # Reverse the partitions of each 32-partition quadrant of every row tile with
  # `nisa.nc_stream_shuffle` into one destination tile allocated before the loop: every shuffle
  # overwrites it whole (no 255 entry in the mask), so the allocator may give it a buffer per
  # iteration, and the program is the one of shuffle_fresh_dst.py.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  mask = [31 - i for i in range(32)]
  dst = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    nisa.nc_stream_shuffle(src=t, dst=dst, shuffle_mask=mask)
    nl.store(out[r * 128:(r + 1) * 128, :], value=dst)
  return out
