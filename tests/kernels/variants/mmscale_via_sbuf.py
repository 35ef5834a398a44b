import nki
import nki.language as nl
import nki.isa as nisa

# The product copied to SBUF first, then multiplied there: a copy of N plus a tensor_tensor of two
# SBUF inputs (one fp32) of 2N (ISA tensor_copy, tensor_tensor). Variant of the pair
# mmscale_from_psum / mmscale_via_sbuf.
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
    s = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=s, src=p, engine=nisa.vector_engine)
    o = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=o, data1=s, data2=ct, op=nl.multiply)
    nisa.dma_copy(dst=out[:, n * 512:(n + 1) * 512], src=o)
  return out
