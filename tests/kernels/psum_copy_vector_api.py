import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w):
    # out = (x.T @ w) * (x.T @ w) + (x.T @ w), per 128-row tile. x: (128, M), w: (128, N).
    # Each product leaves PSUM through nisa.tensor_copy and the Vector Engine squares and adds it.
    k_size, m_size = x.shape
    _, n_size = w.shape
    out = nl.ndarray((m_size, n_size), dtype=nl.float32, buffer=nl.shared_hbm)
    w_t = nl.ndarray((k_size, n_size), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=w_t, src=w)
    for m in nl.affine_range(m_size // 128):
        x_t = nl.ndarray((k_size, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_t, src=x[:, m * 128:(m + 1) * 128])
        acc = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=acc, stationary=x_t, moving=w_t)
        y = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=y, src=acc)
        sq = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq, data1=y, data2=y, op=nl.multiply)
        z = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=z, data1=sq, data2=y, op=nl.add)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, :], src=z)
    return out
