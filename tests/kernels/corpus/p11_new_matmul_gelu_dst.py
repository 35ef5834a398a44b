# A matmul with a fused GELU (tanh form) epilogue in the newer `nki` API: nc_matmul(dst=psum) accumulating
# over K tiles (the first write replaces, later ones add), activation(dst=sbuf, op=gelu_apprx_tanh) reading
# PSUM, the stationary operand loaded per K tile by dma_copy into a declared tile.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_gelu(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    n_tile = nl.tile_size.gemm_moving_fmax
    for n in nl.affine_range(N // n_tile):
        acc = nl.ndarray((M, n_tile), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(K // 128):
            a = nl.ndarray((128, M), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128, :])
            b = nl.ndarray((128, n_tile), dtype=rhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, n * n_tile:(n + 1) * n_tile])
            nisa.nc_matmul(dst=acc, stationary=a, moving=b)
        res = nl.ndarray((M, n_tile), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=res, op=nl.gelu_apprx_tanh, data=acc)
        nisa.dma_copy(dst=out[:, n * n_tile:(n + 1) * n_tile], src=res)
    return out
