# A matmul whose three dimensions are none of them tile multiples, in the newer `nki` API as its
# matrix-multiplication tutorial writes it: plain `range` loops with trip counts computed by ceiling
# division, the last tile of each dimension cut by `min()`, `nl.ds(start, size)` on HBM, slices of
# full-size SBUF/PSUM tiles as destinations, nc_matmul(dst=psum) accumulating over K (the first
# write replaces), tensor_copy out of PSUM.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_ragged(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_, "contraction dims differ"
    TILE_K = nl.tile_size.pmax
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    n_m = (M + TILE_M - 1) // TILE_M
    n_n = (N + TILE_N - 1) // TILE_N
    n_k = (K + TILE_K - 1) // TILE_K
    for m in range(n_m):
        m0 = m * TILE_M
        ms = min(TILE_M, M - m0)
        for n in range(n_n):
            n0 = n * TILE_N
            ns = min(TILE_N, N - n0)
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for k in range(n_k):
                k0 = k * TILE_K
                ks = min(TILE_K, K - k0)
                a = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a[0:ks, 0:ms], src=lhsT[nl.ds(k0, ks), nl.ds(m0, ms)])
                b = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b[0:ks, 0:ns], src=rhs[nl.ds(k0, ks), nl.ds(n0, ns)])
                nisa.nc_matmul(dst=acc[0:ms, 0:ns], stationary=a[0:ks, 0:ms], moving=b[0:ks, 0:ns])
            res = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res[0:ms, 0:ns], src=acc[0:ms, 0:ns])
            nisa.dma_copy(dst=out[m0:m0 + ms, n0:n0 + ns], src=res[0:ms, 0:ns])
    return out
