# Newer nki API (destination-first calls, partition dim first): the matmul nest of
# colblock_matmul_tiles.py (lhs (2, 128, 2, 128), rhs (2, 128, 2048)).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    m_tiles, _, k_tiles, _ = lhs.shape
    _, _, n_size = rhs.shape
    block = 1024
    chunk = 2
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for n in nl.affine_range(n_size // block):
        rhs_tiles = nl.ndarray((128, k_tiles, block), dtype=rhs.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            nisa.dma_copy(dst=rhs_tiles[:, k, :], src=rhs[k, :, n * block:(n + 1) * block])
        for m in nl.affine_range(m_tiles):
            lhs_t = nl.ndarray((128, k_tiles, 128), dtype=lhs.dtype, buffer=nl.sbuf)
            for c in nl.affine_range(k_tiles // chunk):
                rows = nl.ndarray((128, chunk, 128), dtype=lhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rows, src=lhs[m, :, c * chunk:(c + 1) * chunk, :])
                for j in nl.affine_range(chunk):
                    t_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                    nisa.nc_transpose(dst=t_psum, data=rows[:, j, :])
                    nisa.activation(dst=lhs_t[:, c * chunk + j, :], op=nl.copy, data=t_psum)
            for h in nl.affine_range(block // 512):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    nisa.nc_matmul(dst=acc, stationary=lhs_t[:, k, :], moving=rhs_tiles[:, k, h * 512:(h + 1) * 512])
                res = nl.ndarray((128, 512), dtype=lhs.dtype, buffer=nl.sbuf)
                nisa.activation(dst=res, op=nl.copy, data=acc)
                col = n * block + h * 512
                nisa.dma_copy(dst=out[m, :, col:col + 512], src=res)
    return out
