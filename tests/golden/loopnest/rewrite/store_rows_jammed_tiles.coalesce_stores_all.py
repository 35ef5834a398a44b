# Tutorial style (nl.* calls, slices): store_rows_tiles.py after jam_rows by 2 on the row loop, the
# way a user who unrolled rows by hand writes it. lhs (B, M, K), rhs (B, K, N), K <= 128; out[b] =
# lhs[b] @ rhs[b]. rhs is loaded per 512-column block, once for both rows (what jamming shares);
# each iteration of `for ni` stores two 2 KiB-per-partition tiles, rows 256*mi and 256*mi + 128 of
# one `mi`: disjoint in that iteration, which is what coalesce_stores needs to take each row's
# store after the loop. store_rows_jammed_grid.py and store_rows_jammed_api.py are the same nest.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    batch, m_size, k_size = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((batch, m_size, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        for mi in nl.affine_range(m_size // 256):
            lhs_tile = nl.load(lhs[b, mi * 256:mi * 256 + 128, :])
            t_psum = nisa.nc_transpose(lhs_tile)
            lhs_t = nl.copy(t_psum, dtype=lhs.dtype)
            lhs_tile_1 = nl.load(lhs[b, mi * 256 + 128:mi * 256 + 256, :])
            t_psum_1 = nisa.nc_transpose(lhs_tile_1)
            lhs_t_1 = nl.copy(t_psum_1, dtype=lhs.dtype)
            out_buf = nl.ndarray(shape=(128, n_size // 512 * 512), dtype=nl.float32, buffer=nl.sbuf)
            out_buf2 = nl.ndarray(shape=(128, n_size // 512 * 512), dtype=nl.float32, buffer=nl.sbuf)
            for ni in nl.affine_range(n_size // 512):
                rhs_tile = nl.load(rhs[b, :, ni * 512:(ni + 1) * 512])
                ps = nisa.nc_matmul(lhs_t, rhs_tile)
                out_buf[:, 512*ni:512*ni + 512] = nl.copy(ps)
                ps_1 = nisa.nc_matmul(lhs_t_1, rhs_tile)
                out_buf2[:, 512*ni:512*ni + 512] = nl.copy(ps_1)
            nl.store(out[b, mi * 256 + 128:mi * 256 + 256, :], value=out_buf2)
            nl.store(out[b, mi * 256:mi * 256 + 128, :], value=out_buf)
    return out
