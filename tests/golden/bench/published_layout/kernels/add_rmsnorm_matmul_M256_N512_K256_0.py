import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki.language import par_dim


def transpose_tiles(tile, ident, k_tiles):
    # 128x128 transposes on the Tensor Engine against an identity, copied back to SBUF
    tiles_t = nl.ndarray((k_tiles, par_dim(128), 128), dtype=tile.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        t_psum = nisa.nc_matmul(tile[:, k * 128:(k + 1) * 128], ident, is_moving_onezero=True, is_transpose=True)
        tiles_t[k] = nl.copy(t_psum, dtype=tile.dtype)
    return tiles_t


@nki.jit
def kernel(x, w, eps, z, g):
    m_size, k_size = x.shape
    _, n_size = w.shape
    k_tiles = k_size // 128
    out = nl.ndarray((m_size, n_size), dtype=x.dtype, buffer=nl.shared_hbm)
    ident = nl.load(nl.shared_constant(np.identity(128, dtype=np.float32)))
    g_tile = nl.load(g.reshape((1, k_size))).broadcast_to((128, k_size))
    for m in nl.affine_range(m_size // 128):
        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])
        z_tile = nl.load(z[m * 128:(m + 1) * 128, :])
        y = nl.add(x_tile, z_tile)
        total = nl.sum(nl.square(y), axis=[1], keepdims=True)
        inv_rms = nl.rsqrt(nl.add(nl.multiply(total, 1.0 / k_size), eps))
        y_t = transpose_tiles(nl.multiply(nl.multiply(y, inv_rms), g_tile), ident, k_tiles)
        for n in nl.affine_range(n_size // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                w_tile = nl.load(w[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nisa.nc_matmul(y_t[k], w_tile)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=nl.copy(acc, dtype=x.dtype))
    return out
