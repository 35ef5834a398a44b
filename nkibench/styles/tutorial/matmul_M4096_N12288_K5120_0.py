# lhs @ rhs as a first-time author writes it after the NKI tutorials' tiled matmul: a helper
# that loads one operand tile, nl.matmul on row tiles (the transpose left to nl.matmul), nl.ds
# slices, every operand tile loaded in the innermost loop.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def load_rhs_tile(rhs, k, n, tile_n):
    return nl.load(rhs[k, :, nl.ds(n * tile_n, tile_n)])


@nki.jit
def matmul_kernel(lhs, rhs):
    # lhs: (M/128, 128, K/128, 128) = row tile, row, K tile, k; rhs: (K/128, 128, N).
    m_tiles, TILE_M, k_tiles, TILE_K = lhs.shape
    _, _, N = rhs.shape
    TILE_N = 512
    out = nl.ndarray((m_tiles, TILE_M, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(m_tiles):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                lhs_tile = nl.load(lhs[m, :, k, :])
                rhs_tile = load_rhs_tile(rhs, k, n, TILE_N)
                res_psum += nl.matmul(lhs_tile, rhs_tile)
            res_sb = nl.copy(res_psum, dtype=lhs.dtype)
            nl.store(out[m, :, nl.ds(n * TILE_N, TILE_N)], value=res_sb)
    return out
