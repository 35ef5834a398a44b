import nki
import nki.language as nl
import nki.isa as nisa

# The product's tile multiplied straight from PSUM: a tensor_tensor with one PSUM and one SBUF input
# is max(MIN_II, N) (ISA tensor_tensor). Base of the pair mmscale_from_psum / mmscale_via_sbuf.
@nki.jit
def kernel(xT, y, c):
  K, M = xT.shape
  _, N = y.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  xs = nl.ndarray((K, M), dtype=xT.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=xs, src=xT)
  for n in range(N // 512):
    yt = nl.ndarray((K, 512), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=yt, src=y[:, n * 512:(n + 1) * 512])
    ct = nl.ndarray((M, 512), dtype=c.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ct, src=c[:, n * 512:(n + 1) * 512])
    p = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=xs, moving=yt)
    o = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=o, data1=p, data2=ct, op=nl.multiply)
    nisa.dma_copy(dst=out[:, n * 512:(n + 1) * 512], src=o)
  return out
