# inputs: 2x4x128x2x128 2x128x2048 128x2048
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, bias):
    # x: (M/512, 4, 128, K/128, 128): the row loop is a perfect nest (i, j); out = x @ w + bias.
    # `total` is a kernel-level name reused after the nest: the per-row names must not leak.
    m_outer, m_inner, _, k_tiles, _ = x.shape
    _, _, n_size = w.shape
    out = nl.ndarray((m_outer, m_inner, 128, n_size), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    block = 512
    for n in nl.affine_range(n_size // block):
        w_tiles = nl.ndarray((k_tiles, nl.par_dim(128), block), dtype=w.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            w_tiles[k] = nl.load(w[k, :, n * block:(n + 1) * block])
        b_tile = nl.load(bias[:, n * block:(n + 1) * block])
        for i in nl.affine_range(m_outer):
            for j in nl.affine_range(m_inner):
                x_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
                for k in nl.affine_range(k_tiles):
                    rows = nl.load(x[i, j, :, k, :])
                    t_psum = nisa.nc_matmul(rows, ident, is_moving_onezero=True, is_transpose=True)
                    x_t[k] = nl.copy(t_psum, dtype=x.dtype)
                acc = nl.zeros((128, block), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    acc += nisa.nc_matmul(x_t[k], w_tiles[k])
                total = nl.add(acc, b_tile)
                nl.store(out[i, j, :, n * block:(n + 1) * block], value=total)
    return out
