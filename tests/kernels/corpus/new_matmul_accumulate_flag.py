# Matmul in the newer `nki` API with the accumulation made explicit: nisa.nc_matmul(dst=psum,
# ..., accumulate=k > 0) overwrites the PSUM tile on the first K tile and adds on the others;
# the PSUM tile is copied to SBUF with nisa.tensor_copy(dst=, engine=nisa.vector_engine); the
# stationary operand is loaded already transposed (K on partitions) by nisa.dma_copy. Loops are
# plain Python `range` (NKI 0.7, affine_range deprecated).
import nki
import nki.isa as nisa
import nki.language as nl

TILE_K = 128
TILE_M = 128
TILE_N = 512


@nki.jit
def matmul_at_b(a_t, b):
    K, M = a_t.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in range(M // TILE_M):
        for n in range(N // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for k in range(K // TILE_K):
                lhs = nl.ndarray((TILE_K, TILE_M), dtype=a_t.dtype, buffer=nl.sbuf)
                rhs = nl.ndarray((TILE_K, TILE_N), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhs, src=a_t[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=rhs, src=b[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=acc, stationary=lhs, moving=rhs, accumulate=k > 0)
            res = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc, engine=nisa.vector_engine)
            nisa.dma_copy(dst=out[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res)
    return out


kernel = matmul_at_b
