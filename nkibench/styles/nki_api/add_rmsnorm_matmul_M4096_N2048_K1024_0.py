import nki
import nki.language as nl
import nki.isa as nisa


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
    g_row = nl.ndarray((1, k_size), dtype=g.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g.reshape((1, k_size)))
    g_tile = nl.broadcast_to(g_row, shape=(128, k_size))

    for m in nl.affine_range(m_size // 128):
        x_tile = nl.ndarray((128, k_size), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[m * 128:(m + 1) * 128, :])
        z_tile = nl.ndarray((128, k_size), dtype=z.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=z_tile, src=z[m * 128:(m + 1) * 128, :])
        y = nl.ndarray((128, k_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y, data1=x_tile, data2=z_tile, op=nl.add)
        squares = nl.ndarray((128, k_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=squares, op=nl.square, data=y)
        total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=total, op=nl.add, data=squares, axis=1, keepdims=True)
        mean = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean, data=total, op0=nl.multiply, operand0=1.0 / k_size)
        mean_eps = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean_eps, data=mean, op0=nl.add, operand0=eps)
        inv_rms = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=inv_rms, op=nl.rsqrt, data=mean_eps)
        y_inv = nl.ndarray((128, k_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y_inv, data=y, op0=nl.multiply, operand0=inv_rms)
        y_scaled = nl.ndarray((128, k_size), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_scaled, data1=y_inv, data2=g_tile, op=nl.multiply)
        nisa.dma_copy(dst=y_norm[m * 128:(m + 1) * 128, :], src=y_scaled)

    w_tiles = nl.ndarray((128, k_tiles, n_size), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        nisa.dma_copy(dst=w_tiles[:, k, :], src=w[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(m_size // 128):
        y_row = nl.ndarray((128, k_size), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=y_row, src=y_norm[m * 128:(m + 1) * 128, :])
        y_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=t_psum, data=y_row[:, k * 128:(k + 1) * 128])
            nisa.activation(dst=y_t[:, k, :], op=nl.copy, data=t_psum)
        for n in nl.affine_range(n_size // 512):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                nisa.nc_matmul(dst=acc, stationary=y_t[:, k, :], moving=w_tiles[:, k, n * 512:(n + 1) * 512])
            res = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.activation(dst=res, op=nl.copy, data=acc)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], src=res)
    return out
