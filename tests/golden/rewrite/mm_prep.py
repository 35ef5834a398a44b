# inputs: 4x128x2x128 2x128x2048
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (M/128, 128, K/128, 128) row tiles; rhs: (K/128, 128, N). For each column block the rhs
    # tiles are loaded once, but every row tile is re-loaded and re-transposed per column block.
    m_tiles, _, k_tiles, _ = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    block = 512
    for n in nl.affine_range(n_size // block):
        rhs_tiles = nl.ndarray((k_tiles, nl.par_dim(128), block), dtype=rhs.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            rhs_tiles[k] = nl.load(rhs[k, :, n * block:(n + 1) * block])
        for m in nl.affine_range(m_tiles):
            lhs_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
            rows = nl.load(lhs[m])
            for k in nl.affine_range(k_tiles):
                t_psum = nisa.nc_matmul(rows[:, k, :], ident, is_moving_onezero=True, is_transpose=True)
                lhs_t[k] = nl.copy(t_psum, dtype=lhs.dtype)
            acc = nl.zeros((128, block), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                acc += nisa.nc_matmul(lhs_t[k], rhs_tiles[k])
            res = nl.copy(acc, dtype=lhs.dtype)
            nl.store(out[m, :, n * block:(n + 1) * block], value=res)
    return out
