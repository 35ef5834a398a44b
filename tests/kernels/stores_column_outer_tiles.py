# Tutorial style (reference store_rows.ref.py; at (16, 4096, 64) x (16, 64, 4096) the NKIBench
# bmm): a batched matmul that transposes a batch's row tiles into one SBUF buffer first, then
# walks column blocks outside row tiles (`for ni: for mi:`), storing each 512-column PSUM result
# as soon as it is computed (2 KiB per partition). The row loop is innermost, so a row tile's stores
# are not adjacent in one loop: interchanging the two loops changes little by itself, but then the
# stores of a row tile can be assembled and stored once (coalesce_stores).
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
        lhs_t = nl.ndarray((k_size, m_size), dtype=lhs.dtype, buffer=nl.sbuf)
        for mt in nl.affine_range(m_size // 128):
            lhs_tile = nl.load(lhs[b, mt * 128:(mt + 1) * 128, :])
            lhs_t[:, mt * 128:(mt + 1) * 128] = nl.copy(nisa.nc_transpose(lhs_tile), dtype=lhs.dtype)
        for ni in nl.affine_range(n_size // 512):
            for mi in nl.affine_range(m_size // 128):
                ps = nisa.nc_matmul(lhs_t[:, mi * 128:(mi + 1) * 128], rhs_tile[:, ni * 512:(ni + 1) * 512])
                nl.store(out[b, mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], value=nl.copy(ps))
    return out
