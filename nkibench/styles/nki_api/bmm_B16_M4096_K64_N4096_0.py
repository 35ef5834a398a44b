import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (B, M, K), rhs: (B, K, N) with K <= 128. Each 128-row lhs tile is transposed on the
    # Tensor Engine so that K is the contraction (partition) dim; the result row tile is
    # assembled in SBUF from 512-column PSUM tiles and stored once.
    batch, m_size, k_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // 128
    out = nl.ndarray((batch, m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        rhs_tile = nl.ndarray((k_size, n_size), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[b])
        for m in nl.affine_range(m_tiles):
            lhs_tile = nl.ndarray((128, k_size), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=lhs_tile, src=lhs[b, m * 128:(m + 1) * 128, :])
            lhs_t_psum = nl.ndarray((k_size, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=lhs_t_psum, data=lhs_tile)
            lhs_t = nl.ndarray((k_size, 128), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.activation(dst=lhs_t, op=nl.copy, data=lhs_t_psum)
            res = nl.ndarray((128, n_size), dtype=lhs.dtype, buffer=nl.sbuf)
            for n in nl.affine_range(n_size // 512):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=acc, stationary=lhs_t, moving=rhs_tile[:, n * 512:(n + 1) * 512])
                nisa.activation(dst=res[:, n * 512:(n + 1) * 512], op=nl.copy, data=acc)
            nisa.dma_copy(dst=out[b, m], src=res)
    return out
