import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (M/128, 128, K/128, 128) = row tile, row, K tile, k; rhs: (K/128, 128, N).
    # For each 1024-column block the rhs K tiles are loaded once; every lhs row tile is loaded in
    # chunks of 8 K tiles, transposed on the Tensor Engine, then each 512-column half accumulates
    # all K tiles in one PSUM tile.
    m_tiles, _, k_tiles, _ = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    block = 512
    chunk = 8
    for n in nl.affine_range(n_size // block):
        rhs_tiles = nl.ndarray((k_tiles, nl.par_dim(128), block), dtype=rhs.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            rhs_tiles[k] = nl.load(rhs[k, :, n * block:(n + 1) * block])
        for m in nl.affine_range(m_tiles):
            lhs_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
            for c in nl.affine_range(k_tiles // chunk):
                rows = nl.load(lhs[m, :, c * chunk:(c + 1) * chunk, :])
                for j in nl.affine_range(chunk):
                    t_psum = nisa.nc_matmul(rows[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                    lhs_t[c * chunk + j] = nl.copy(t_psum, dtype=lhs.dtype)
            for h in nl.affine_range(block // 512):
                acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    acc += nisa.nc_matmul(lhs_t[k], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                res = nl.copy(acc, dtype=lhs.dtype)
                col = n * block + h * 512
                nl.store(out[m, :, col:col + 512], value=res)
    return out
