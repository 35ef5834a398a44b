import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xa, wa, xb, wb):
  # The a operands on partitions 0-63, the b operands on 64-127; each K=64 matmul on the PE rows
  # that hold its operands (tile_position / tile_size: PE tiling), so the two halves' matmuls run
  # side by side. Same program as pe_tiles_whole.py.
  R, K, M = xa.shape
  N = wa.shape[2]
  oa = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  ob = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  x = nl.ndarray((R, nl.par_dim(2 * K), M), dtype=xa.dtype, buffer=nl.sbuf)
  w = nl.ndarray((R, nl.par_dim(2 * K), N), dtype=wa.dtype, buffer=nl.sbuf)
  for r in nl.affine_range(R):
    x[r, 0:K, :] = nl.load(xa[r])
    x[r, K:2 * K, :] = nl.load(xb[r])
    w[r, 0:K, :] = nl.load(wa[r])
    w[r, K:2 * K, :] = nl.load(wb[r])
  acc_a = nl.zeros((M, N), dtype=nl.float32, buffer=nl.psum)
  acc_b = nl.zeros((M, N), dtype=nl.float32, buffer=nl.psum)
  for rep in nl.affine_range(32):
    for r in nl.affine_range(R):
      acc_a += nisa.nc_matmul(x[r, 0:K, :], w[r, 0:K, :], tile_position=(0, 0), tile_size=(K, M))
      acc_b += nisa.nc_matmul(x[r, K:2 * K, :], w[r, K:2 * K, :], tile_position=(K, 0), tile_size=(K, M))
  nl.store(oa, value=acc_a)
  nl.store(ob, value=acc_b)
  return oa, ob
