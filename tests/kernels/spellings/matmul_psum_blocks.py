import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
  # xT.T @ w with the K sum accumulated in PSUM, the four row tiles' accumulators one zeroed
  # PSUM tensor with a block dimension (a bank each). Same program as matmul_nc_matmul.py, which
  # zeroes a fresh [128, N] PSUM tile per row tile: the zero fill of either is never run (the
  # first matmul of a group writes its bank, ARCH2; a matmul accumulating into PSUM first written
  # by a memset is undefined, ISA-NEW), block by block.
  K, M = xT.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  xs = nl.ndarray((K // 128, nl.par_dim(128), M), dtype=xT.dtype, buffer=nl.sbuf)
  ws = nl.ndarray((K // 128, nl.par_dim(128), N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(K // 128):
    xs[kb] = nl.load(xT[kb * 128:(kb + 1) * 128, :])
    ws[kb] = nl.load(w[kb * 128:(kb + 1) * 128, :])
  acc = nl.zeros((M // 128, nl.par_dim(128), N), dtype=nl.float32, buffer=nl.psum)
  for mb in nl.affine_range(M // 128):
    for kb in nl.affine_range(K // 128):
      acc[mb] += nisa.nc_matmul(xs[kb, :, mb * 128:(mb + 1) * 128], ws[kb])
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc[mb])
  return out
