# Newer nki API (destination-first calls): the nest of stores_column_outer_tiles.py. A batch's row tiles
# are transposed into one SBUF buffer first; then `for ni: for mi:` computes and stores each
# (128, 512) result tile at once. Interchanging the loops alone changes little; it lets the stores of
# a row tile be assembled and stored once.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    batch, m_size, k_size = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((batch, m_size, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        rhs_tile = nl.ndarray((k_size, n_size), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[b])
        lhs_t = nl.ndarray((k_size, m_size), dtype=lhs.dtype, buffer=nl.sbuf)
        for mt in nl.affine_range(m_size // 128):
            lhs_tile = nl.ndarray((128, k_size), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=lhs_tile, src=lhs[b, mt * 128:(mt + 1) * 128, :])
            t_psum = nl.ndarray((k_size, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=t_psum, data=lhs_tile)
            nisa.activation(dst=lhs_t[:, mt * 128:(mt + 1) * 128], op=nl.copy, data=t_psum)
        for ni in nl.affine_range(n_size // 512):
            for mi in nl.affine_range(m_size // 128):
                ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=ps, stationary=lhs_t[:, mi * 128:(mi + 1) * 128],
                               moving=rhs_tile[:, ni * 512:(ni + 1) * 512])
                res = nl.ndarray((128, 512), dtype=lhs.dtype, buffer=nl.sbuf)
                nisa.activation(dst=res, op=nl.copy, data=ps)
                nisa.dma_copy(dst=out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], src=res)
    return out
