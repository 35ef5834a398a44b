# lhs.T @ rhs as a first-time author writes it after the NKI tutorials' tiled matmul: both
# operand tiles loaded in the innermost loop, 512-column output tiles, the ragged last one
# (10944 = 21 x 512 + 192) under masks built from nl.arange.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def transpose_matmul_kernel(lhs, rhs):
    # lhs: (128, K/128, M), rhs: (128, K/128, N): K row p * (K/128) + t sits on partition p of
    # tile t of both operands.
    TILE_K, k_tiles, M = lhs.shape
    _, _, N = rhs.shape
    TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
    TILE_N = nl.tile_size.gemm_moving_fmax  # 512
    out = nl.ndarray((M, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    i_k = nl.arange(TILE_K)[:, None]
    i_m = nl.arange(TILE_M)[:, None]
    i_n = nl.arange(TILE_N)[None, :]
    for n_blk in nl.affine_range(((N + TILE_N - 1) // TILE_N) // 2):
        rhs_tile = nl.ndarray(shape=(2, k_tiles, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
        for n_in in nl.affine_range(2):
            n = n_blk * 2 + n_in
            for k in nl.affine_range(k_tiles):
                rhs_tile[n_in, k, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(rhs[i_k, k, n * TILE_N + i_n], mask=n * TILE_N + i_n < N)
        for m in nl.affine_range(M // TILE_M):
            for n_in in nl.affine_range(2):
                n = n_blk * 2 + n_in
                res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    lhs_tile = nl.load(lhs[:, k, nl.ds(m * TILE_M, TILE_M)])
                    res_psum += nl.matmul(lhs_tile, rhs_tile[n_in, k, nl.arange(128)[:, None], nl.arange(512)[None, :]], transpose_x=True)
                res_sb = nl.copy(res_psum, dtype=out.dtype)
                nl.store(out[m * TILE_M + i_m, n * TILE_N + i_n], value=res_sb, mask=(n * TILE_N + i_n < N))
    return out
