# Tutorial style (nl.* calls, slices): a batched matmul that stores each 512-column PSUM result as
# soon as it is computed, `value=nl.copy(ps)` inside the store. lhs (B, M, K), rhs (B, K, N), K <=
# 128; out[b] = lhs[b] @ rhs[b]. Each store moves 2 KiB per partition; coalesce_stores assembles
# the row tile in an SBUF buffer and stores it once after `for ni`. store_rows_grid.py and
# store_rows_api.py are the same nest; at (16, 4096, 64) x (16, 64, 4096) it is the NKIBench bmm.
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
        rhs_tile = nl.load(rhs[b])
        for mi in nl.affine_range(m_size // 128):
            lhs_tile = nl.load(lhs[b, mi * 128:(mi + 1) * 128, :])
            t_psum = nisa.nc_transpose(lhs_tile)
            lhs_t = nl.copy(t_psum, dtype=lhs.dtype)
            out_buf = nl.ndarray(shape=(128, n_size // 512 * 512), dtype=nl.float32, buffer=nl.sbuf)
            for ni in nl.affine_range(n_size // 512):
                ps = nisa.nc_matmul(lhs_t, rhs_tile[:, ni * 512:(ni + 1) * 512])
                out_buf[:, 512*ni:512*ni + 512] = nl.copy(ps)
            nl.store(out[b, mi * 128:(mi + 1) * 128, :], value=out_buf)
    return out
