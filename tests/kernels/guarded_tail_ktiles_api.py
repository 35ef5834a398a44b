# Newer nki API (destination-first, dma_copy): guarded_tail_ktiles.py's nest, the ragged last block
# under `if rem > 0:` (true at N = 1280) with its first column `c0` bound under the guard. The
# tail's rhs tiles are re-loaded for every 128-row tile m: hoist_expand loads them once before `for
# m`, printed under `if rem > 0:` with `c0` bound there
# (tests/unit/loopnest/decided_guard_test.cpp).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhsT, rhs):
    _, KT, M = lhsT.shape
    _, _, N = rhs.shape
    NB = 512
    NT = N // NB
    rem = N - NT * NB
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        lt = nl.ndarray((128, KT, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lt, src=lhsT[:, :, m * 128:(m + 1) * 128])
        for n in nl.affine_range(NT):
            ps = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(KT):
                rt = nl.ndarray((128, NB), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rt, src=rhs[:, t, n * NB:(n + 1) * NB])
                nisa.nc_matmul(dst=ps, stationary=lt[:, t, :], moving=rt)
            res = nl.ndarray((128, NB), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=ps)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], src=res)
        if rem > 0:
            c0 = NT * NB
            ps_tail = nl.ndarray((128, rem), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(KT):
                rt_tail = nl.ndarray((128, rem), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rt_tail, src=rhs[:, t, c0:N])
                nisa.nc_matmul(dst=ps_tail, stationary=lt[:, t, :], moving=rt_tail)
            res_tail = nl.ndarray((128, rem), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_tail, src=ps_tail)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, c0:N], src=res_tail)
    return out
