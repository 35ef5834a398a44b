# Newer nki API (destination-first calls, partition dim first): the nest of store_rows_tiles.py,
# lhs (2, 256, 64), rhs (2, 64, 2048), the result tile declared, copied and stored inside `for ni`.
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
        for mi in nl.affine_range(m_size // 128):
            lhs_tile = nl.ndarray((128, k_size), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=lhs_tile, src=lhs[b, mi * 128:(mi + 1) * 128, :])
            lhs_t_psum = nl.ndarray((k_size, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=lhs_t_psum, data=lhs_tile)
            lhs_t = nl.ndarray((k_size, 128), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=lhs_t, src=lhs_t_psum)
            res = nl.ndarray((128, n_size // 512 * 512), dtype=lhs.dtype, buffer=nl.sbuf)
            for ni in nl.affine_range(n_size // 512):
                ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=ps, stationary=lhs_t, moving=rhs_tile[:, ni * 512:(ni + 1) * 512])
                nisa.tensor_copy(dst=res[:, 512*ni:512*ni + 512], src=ps)
            nisa.dma_copy(dst=out[b, mi * 128:(mi + 1) * 128, :], src=res)
    return out
