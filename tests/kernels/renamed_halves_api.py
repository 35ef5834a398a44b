# Newer nki API (destination-first, dma_copy): rebound_halves_api.py with the two weight halves
# named apart (`w_lo`, `w_hi`): each copy is the same in every row tile and hoist offers to print it
# (with its declaration) before `for m` (tests/unit/loopnest/hoist_rebound_test.cpp).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    H = N // 2
    out = nl.ndarray((M, N), dtype=xT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        lhsT = nl.ndarray((K, 128), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhsT, src=xT[:, m * 128:(m + 1) * 128])
        w_lo = nl.ndarray((K, H), dtype=w.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=w_lo, src=w[:, 0:H])
        ps = nl.ndarray((128, H), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=ps, stationary=lhsT, moving=w_lo)
        res = nl.ndarray((128, H), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=ps)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, 0:H], src=res)
        w_hi = nl.ndarray((K, H), dtype=w.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=w_hi, src=w[:, H:N])
        ps = nl.ndarray((128, H), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=ps, stationary=lhsT, moving=w_hi)
        res = nl.ndarray((128, H), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=ps)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, H:N], src=res)
    return out
