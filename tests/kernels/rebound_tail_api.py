# Newer nki API (destination-first, dma_copy): guarded_cols_tail_api.py with the ragged tail's tiles
# named as the full blocks' (`wt`, `ps`, `res` bound again under `if rem > 0:`). The tail's weight
# load is the same in every row tile, but printed before `for m` its `wt` would be the one the
# column loop binds again before the tail reads it: hoist does not offer it
# (tests/unit/loopnest/hoist_rebound_test.cpp); guarded_cols_tail_api.py, naming it `w_tail`, is
# offered the hoist.
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
        if rem > 0:
            wt = nl.ndarray((K, rem), dtype=w.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=wt, src=w[:, NT * NB:N])
            ps = nl.ndarray((128, rem), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=ps, stationary=lhsT, moving=wt)
            res = nl.ndarray((128, rem), dtype=xT.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=ps)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, NT * NB:N], src=res)
    return out
