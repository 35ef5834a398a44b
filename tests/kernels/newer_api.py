# The newer API: import nki, destination-first nisa calls, dma_copy, and matmul into an
# uninitialised (here: memset-polluted) PSUM tile relying on "first matmul write overwrites".
# a is (K=128, M=128), b is (K=128, N=256); out = a.T @ b + b.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    b_sb = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=b_sb, src=b)
    ps = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.psum)
    nisa.memset(dst=ps, value=5.0)
    for k in nl.affine_range(2):
        nisa.nc_matmul(ps, a_sb[k * 64:(k + 1) * 64, :], b_sb[k * 64:(k + 1) * 64, :])
    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=acc, src=ps)
    nisa.tensor_tensor(dst=acc, data1=acc, data2=b_sb, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out
