import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w, a, b):
    # x: (M/512, 4, 128, K/128, 128), w: (K/128, 128, N), a: (K/128, 128, R), b: (R, N).
    # Stage 1 computes (x @ a)^T = a^T @ x^T for every row tile. Stage 2 is the plain matmul
    # x @ w per 1024-column block (w tiles loaded once per block, x rows re-loaded and
    # re-transposed), with the low-rank term accumulated into the same PSUM tile.
    m_outer, m_inner, _, k_tiles, _ = x.shape
    _, _, n_size = w.shape
    _, _, rank = a.shape
    m_tiles = m_outer * m_inner
    block = 1024
    chunk = 8
    out = nl.ndarray((m_outer, m_inner, 128, n_size // 128, 128), dtype=x.dtype, buffer=nl.shared_hbm)

    a_tiles = nl.ndarray((128, k_tiles, rank), dtype=a.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        nisa.dma_copy(dst=a_tiles[:, k, :], src=a[k])
    xa_t = nl.ndarray((rank, m_tiles, 128), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(m_outer):
        for j in nl.affine_range(m_inner):
            x_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
            for c in nl.affine_range(k_tiles // chunk):
                rows = nl.ndarray((128, chunk, 128), dtype=x.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rows, src=x[i, j, :, c * chunk:(c + 1) * chunk, :])
                for q in nl.affine_range(chunk):
                    t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                    nisa.nc_transpose(dst=t_psum, data=rows[:, q, :])
                    nisa.activation(dst=x_t[:, c * chunk + q, :], op=nl.copy, data=t_psum)
            acc = nl.ndarray((rank, 128), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                nisa.nc_matmul(dst=acc, stationary=a_tiles[:, k, :], moving=x_t[:, k, :])
            nisa.activation(dst=xa_t[:, i * m_inner + j, :], op=nl.copy, data=acc)

    for n in nl.affine_range(n_size // block):
        w_tiles = nl.ndarray((128, k_tiles, block), dtype=w.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            nisa.dma_copy(dst=w_tiles[:, k, :], src=w[k, :, n * block:(n + 1) * block])
        b_tile = nl.ndarray((rank, block), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b_tile, src=b[:, n * block:(n + 1) * block])
        for i in nl.affine_range(m_outer):
            for j in nl.affine_range(m_inner):
                x_t = nl.ndarray((128, k_tiles, 128), dtype=x.dtype, buffer=nl.sbuf)
                for c in nl.affine_range(k_tiles // chunk):
                    rows = nl.ndarray((128, chunk, 128), dtype=x.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=rows, src=x[i, j, :, c * chunk:(c + 1) * chunk, :])
                    for q in nl.affine_range(chunk):
                        t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                        nisa.nc_transpose(dst=t_psum, data=rows[:, q, :])
                        nisa.activation(dst=x_t[:, c * chunk + q, :], op=nl.copy, data=t_psum)
                res = nl.ndarray((128, block), dtype=x.dtype, buffer=nl.sbuf)
                for h in nl.affine_range(block // 512):
                    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(k_tiles):
                        nisa.nc_matmul(dst=acc, stationary=x_t[:, k, :], moving=w_tiles[:, k, h * 512:(h + 1) * 512])
                    nisa.nc_matmul(dst=acc, stationary=xa_t[:, i * m_inner + j, :],
                                   moving=b_tile[:, h * 512:(h + 1) * 512])
                    nisa.activation(dst=res[:, h * 512:(h + 1) * 512], op=nl.copy, data=acc)
                for q in nl.affine_range(block // 128):
                    nisa.dma_copy(dst=out[i, j, :, n * (block // 128) + q, :], src=res[:, q * 128:(q + 1) * 128])
    return out
