# RMSNorm then matmul as a first-time author writes it after the NKI tutorials: the norm in a
# helper with nl.* math, nl.matmul on row slices (the transpose left to nl.matmul), nl.ds
# slices, and the weight tile loaded in the innermost loop, where the tutorial's tiled matmul
# loads it: w is read from HBM once per row tile.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def rms_normalize(x_tile, k_size):
    """x / sqrt(mean(x^2)) along the free axis."""
    sq = nl.multiply(x_tile, x_tile)
    sum_sq = nl.sum(sq, axis=[1], keepdims=True)
    inv_rms = nl.rsqrt(nl.multiply(sum_sq, 1.0 / k_size))
    return nl.multiply(x_tile, inv_rms)


@nki.jit
def rmsnorm_matmul_kernel(x, w):
    # x: (M/128, 128, K), w: (K/128, 128, N).
    m_tiles, TILE_M, K = x.shape
    k_tiles, TILE_K, N = w.shape
    TILE_N = 512
    out = nl.ndarray((m_tiles, TILE_M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(m_tiles):
        x_tile = nl.load(x[m])
        x_norm = rms_normalize(x_tile, K)
        x_norm_t = nl.ndarray(shape=(k_tiles, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            x_norm_t[k, :, :] = nl.transpose(x=x_norm[:, nl.ds(k * TILE_K, TILE_K)])
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                w_tile = nl.load(w[k, :, nl.ds(n * TILE_N, TILE_N)])
                res_psum += nl.matmul(x_norm_t[k, :, :], w_tile, transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=x.dtype)
            nl.store(out[m, :, nl.ds(n * TILE_N, TILE_N)], value=res_sb)
    return out
