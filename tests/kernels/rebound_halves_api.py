# Newer nki API (destination-first, dma_copy): out = xT.T @ w for N = 1024 written as two column
# halves in the row loop, both weight halves declared and copied into `wt` (the second declaration
# binds the name again). Neither copy may be printed before `for m` (rebound_halves.py says why):
# hoist offers neither (tests/unit/loopnest/hoist_rebound_test.cpp); renamed_halves_api.py is
# offered both.
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
        wt = nl.ndarray((K, H), dtype=w.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=wt, src=w[:, 0:H])
        ps = nl.ndarray((128, H), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=ps, stationary=lhsT, moving=wt)
        res = nl.ndarray((128, H), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=ps)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, 0:H], src=res)
        wt = nl.ndarray((K, H), dtype=w.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=wt, src=w[:, H:N])
        ps = nl.ndarray((128, H), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=ps, stationary=lhsT, moving=wt)
        res = nl.ndarray((128, H), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=ps)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, H:N], src=res)
    return out
