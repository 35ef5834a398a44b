# Newer nki API (destination-first, dma_copy): out = xT.T @ w, xT (K, M) with K <= 128, w (K, N).
# The weight's column blocks are re-loaded for every 128-row tile m though they do not depend on it:
# hoist_expand loads them once before `for m`. The guarded_cols_* kernels are this nest under
# compile-time `if`s (tests in tests/unit/loopnest/decided_guard_test.cpp): each must offer the
# sites this one does.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    NB = 512
    NT = N // NB
    rem = N % NB
    out = nl.ndarray((M, N), dtype=xT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        lhsT = nl.ndarray((K, 128), dtype=xT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhsT, src=xT[:, m * 128:(m + 1) * 128])
        for n in nl.affine_range(NT):
            wt = nl.ndarray((K, NB), dtype=w.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=wt, src=w[:, n * NB:(n + 1) * NB])
            ps = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=ps, stationary=lhsT, moving=wt)
            res = nl.ndarray((128, NB), dtype=xT.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=ps)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], src=res)
    return out
