# The same product in the newer `nki` API: destination-first nisa calls, the K sum added into an
# SBUF accumulator with an explicit tensor_tensor per K block.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(xT, w):
  K, M = xT.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  xs = nl.ndarray((K // 128, nl.par_dim(128), M), dtype=xT.dtype, buffer=nl.sbuf)
  ws = nl.ndarray((K // 128, nl.par_dim(128), N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(K // 128):
    nisa.dma_copy(dst=xs[kb], src=xT[kb * 128:(kb + 1) * 128, :])
    nisa.dma_copy(dst=ws[kb], src=w[kb * 128:(kb + 1) * 128, :])
  for mb in nl.affine_range(M // 128):
    acc = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for kb in nl.affine_range(K // 128):
      part = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
      nisa.nc_matmul(dst=part, stationary=xs[kb, :, mb * 128:(mb + 1) * 128], moving=ws[kb])
      nisa.tensor_tensor(dst=acc, data1=acc, data2=part, op=nl.add)
    nisa.dma_copy(dst=out[mb * 128:(mb + 1) * 128, :], src=acc)
  return out
