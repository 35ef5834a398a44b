import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w, eps, z, g):
    # x: (M, K), w: (K, N), z: (M, N), g: (N,), eps: Python float. Per row tile: y = x @ w
    # (x transposed on the Tensor Engine, w resident), y += z, then scale rows by
    # 1/sqrt(mean(y^2) + eps) and columns by g.
    m_size, k_size = x.shape
    _, n_size = w.shape
    assert z.shape == (m_size, n_size)
    k_tiles = k_size // 128
    out = nl.ndarray((m_size, n_size), dtype=x.dtype, buffer=nl.shared_hbm)
    g_row = nl.ndarray((1, n_size), dtype=g.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g.reshape((1, n_size)))
    g_tile = nl.broadcast_to(g_row, shape=(128, n_size))
    w_tiles = nl.ndarray((128, k_tiles, n_size), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        nisa.dma_copy(dst=w_tiles[:, k, :], src=w[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(m_size // 128):
        x_tile = nl.ndarray((128, k_size), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[m * 128:(m + 1) * 128, :])
        x_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=t_psum, data=x_tile[:, k * 128:(k + 1) * 128])
            nisa.activation(dst=x_t[:, k, :], op=nl.copy, data=t_psum)
        y = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        for n in nl.affine_range(n_size // 512):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                nisa.nc_matmul(dst=acc, stationary=x_t[:, k, :], moving=w_tiles[:, k, n * 512:(n + 1) * 512])
            nisa.activation(dst=y[:, n * 512:(n + 1) * 512], op=nl.copy, data=acc)
        z_tile = nl.ndarray((128, n_size), dtype=z.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=z_tile, src=z[m * 128:(m + 1) * 128, :])
        y_sum = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_sum, data1=y, data2=z_tile, op=nl.add)
        squares = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=squares, op=nl.square, data=y_sum)
        total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=total, op=nl.add, data=squares, axis=1, keepdims=True)
        mean = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean, data=total, op0=nl.multiply, operand0=1.0 / n_size)
        mean_eps = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean_eps, data=mean, op0=nl.add, operand0=eps)
        inv_rms = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=inv_rms, op=nl.rsqrt, data=mean_eps)
        y_g = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_g, data1=y_sum, data2=g_tile, op=nl.multiply)
        res = nl.ndarray((128, n_size), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=res, data=y_g, op0=nl.multiply, operand0=inv_rms)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, :], src=res)
    return out
