import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, eps, z, g):
    # x, z: (M, K), w: (K, N), g: (K,), eps: Python float. Two loop nests, one per stage:
    # y = (x + z) / sqrt(mean((x + z)^2) + eps) * g row tile by row tile into an HBM scratch
    # tensor, then y @ w (y transposed on the Tensor Engine, w resident).
    m_size, k_size = x.shape
    _, n_size = w.shape
    assert z.shape == (m_size, k_size)
    k_tiles = k_size // 128
    out = nl.ndarray((m_size, n_size), dtype=x.dtype, buffer=nl.shared_hbm)
    y_norm = nl.ndarray((m_size, k_size), dtype=x.dtype, buffer=nl.hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    g_tile = nl.load(g.reshape((1, k_size))).broadcast_to((128, k_size))

    for m in nl.affine_range(m_size // 128):
        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])
        z_tile = nl.load(z[m * 128:(m + 1) * 128, :])
        y = nl.add(x_tile, z_tile)
        total = nl.ndarray(shape=(128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation_reduce(op=nl.square, data=y, reduce_op=nl.add, reduce_res=total)
        inv_rms = nl.rsqrt(nl.add(nl.multiply(total, 1.0 / k_size), eps))
        y_scaled = nl.multiply(nl.multiply(y, inv_rms), g_tile)
        nl.store(y_norm[m * 128:(m + 1) * 128, :], value=y_scaled)

    w_tiles = nl.ndarray((k_tiles, nl.par_dim(128), n_size), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        w_tiles[k] = nl.load(w[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(m_size // 128):
        y_row = nl.load(y_norm[m * 128:(m + 1) * 128, :])
        y_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            t_psum = nisa.nc_matmul(y_row[:, k * 128:(k + 1) * 128], ident, is_moving_onezero=True, is_transpose=True)
            y_t[k] = nl.copy(t_psum, dtype=x.dtype)
        for n in nl.affine_range(n_size // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                acc += nisa.nc_matmul(y_t[k], w_tiles[k, :, n * 512:(n + 1) * 512])
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=res)
    return out
