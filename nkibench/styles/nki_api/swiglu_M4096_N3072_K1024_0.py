import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w_up, w_down, w_gate):
    # x: (M/512, 4, 128, K/128, 128), w_up/w_gate: (K/128, 128, N), w_down: (N/128, 128, K).
    # Three loop nests, one per stage, each over the 512-row blocks of x (the outer axis of its
    # layout) with that stage's weights loaded per block and x transposed on the Tensor Engine:
    # gate = x @ w_gate into an HBM scratch tensor; silu(gate) * (x @ w_up) into a second HBM
    # scratch tensor; that scratch @ w_down.
    m_outer, m_inner, _, k_tiles, _ = x.shape
    _, _, n_size = w_up.shape
    n_tiles, _, d_size = w_down.shape
    m_tiles = m_outer * m_inner
    out = nl.ndarray((m_tiles, 128, d_size), dtype=x.dtype, buffer=nl.shared_hbm)
    gate = nl.ndarray((m_tiles, 128, n_size), dtype=x.dtype, buffer=nl.hbm)
    hidden = nl.ndarray((m_tiles, 128, n_size), dtype=x.dtype, buffer=nl.hbm)
    zero_bias = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero_bias, value=0.0)

    for i in nl.affine_range(m_outer):
        wg_tiles = nl.ndarray((128, k_tiles, n_size), dtype=w_gate.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            nisa.dma_copy(dst=wg_tiles[:, k, :], src=w_gate[k])
        for j in nl.affine_range(m_inner):
            rows = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=rows, src=x[i, j])
            x_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(k_tiles):
                t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_transpose(dst=t_psum, data=rows[:, k, :])
                nisa.activation(dst=x_t[:, k, :], op=nl.copy, data=t_psum)
            for n in nl.affine_range(n_size // 512):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    nisa.nc_matmul(dst=acc, stationary=x_t[:, k, :], moving=wg_tiles[:, k, n * 512:(n + 1) * 512])
                g = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=g, op=nl.copy, data=acc)
                nisa.dma_copy(dst=gate[i * m_inner + j, :, n * 512:(n + 1) * 512], src=g)

    for i in nl.affine_range(m_outer):
        wu_tiles = nl.ndarray((128, k_tiles, n_size), dtype=w_up.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            nisa.dma_copy(dst=wu_tiles[:, k, :], src=w_up[k])
        for j in nl.affine_range(m_inner):
            m = i * m_inner + j
            rows = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=rows, src=x[i, j])
            x_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(k_tiles):
                t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_transpose(dst=t_psum, data=rows[:, k, :])
                nisa.activation(dst=x_t[:, k, :], op=nl.copy, data=t_psum)
            for n in nl.affine_range(n_size // 512):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    nisa.nc_matmul(dst=acc, stationary=x_t[:, k, :], moving=wu_tiles[:, k, n * 512:(n + 1) * 512])
                up = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=up, op=nl.copy, data=acc)
                g = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=g, src=gate[m, :, n * 512:(n + 1) * 512])
                e = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=e, op=nl.exp, data=g, bias=zero_bias, scale=-1.0)
                denom = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_scalar(dst=denom, data=e, op0=nl.add, operand0=1.0)
                inv = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.reciprocal(dst=inv, data=denom)
                silu = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=silu, data1=g, data2=inv, op=nl.multiply)
                h = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=h, data1=silu, data2=up, op=nl.multiply)
                nisa.dma_copy(dst=hidden[m, :, n * 512:(n + 1) * 512], src=h)

    for i in nl.affine_range(m_outer):
        wd_tiles = nl.ndarray((128, n_tiles, d_size), dtype=w_down.dtype, buffer=nl.sbuf)
        for t in nl.affine_range(n_tiles):
            nisa.dma_copy(dst=wd_tiles[:, t, :], src=w_down[t])
        for j in nl.affine_range(m_inner):
            m = i * m_inner + j
            h_row = nl.ndarray((128, n_size), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=h_row, src=hidden[m])
            h_t = nl.ndarray((128, n_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            for t in nl.affine_range(n_tiles):
                t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_transpose(dst=t_psum, data=h_row[:, t * 128:(t + 1) * 128])
                nisa.activation(dst=h_t[:, t, :], op=nl.copy, data=t_psum)
            for d in nl.affine_range(d_size // 512):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                for t in nl.affine_range(n_tiles):
                    nisa.nc_matmul(dst=acc, stationary=h_t[:, t, :], moving=wd_tiles[:, t, d * 512:(d + 1) * 512])
                res = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
                nisa.activation(dst=res, op=nl.copy, data=acc)
                nisa.dma_copy(dst=out[m, :, d * 512:(d + 1) * 512], src=res)
    return out
