# Tutorial style (nl.* calls, slices): a batched matmul whose rhs column block is loaded inside
# `for ni`, so it is re-read from HBM once per row tile, and whose 512-column results are stored as
# soon as they are computed. lhs (2, 512, 64), rhs (2, 64, 2048); out[b] = lhs[b] @ rhs[b]. Moves
# on it: jam_rows of `for mi` (2 or 4 rows), coalesce_stores of each row's stores, hoist_expand of
# the rhs block. After a jam of four, coalescing any one of the four rows' stores gives the same
# schedule: the four results are twins (search/grouping.h, same_evaluation).
# bmm_reload_rows_grid.py and bmm_reload_rows_api.py are the same nest.
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
        for mi in nl.affine_range(m_size // 128):
            lhs_tile = nl.load(lhs[b, mi * 128:(mi + 1) * 128, :])
            t_psum = nisa.nc_transpose(lhs_tile)
            lhs_t = nl.copy(t_psum, dtype=lhs.dtype)
            for ni in nl.affine_range(n_size // 512):
                rhs_cols = nl.load(rhs[b, :, ni * 512:(ni + 1) * 512])
                ps = nisa.nc_matmul(lhs_t, rhs_cols)
                res = nl.copy(ps, dtype=lhs.dtype)
                nl.store(out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], value=res)
    return out
