import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (128, K/128, M), rhs: (128, K/128, N): row k of the problem is p * (K/128) + t, so the
    # 128 partitions of lhs[:, t, :] and rhs[:, t, :] already hold matching K rows and no
    # transpose is needed. rhs is re-loaded for every 128-row output tile; the last column chunk
    # is narrower than 512.
    _, k_tiles, m_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // 128
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(m_tiles):
        lhs_tile = nl.ndarray((128, k_tiles, 128), dtype=lhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhs_tile, src=lhs[:, :, m * 128:(m + 1) * 128])
        for n in nl.affine_range((n_size + 511) // 512):
            n0 = n * 512
            width = min(512, n_size - n0)
            acc = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.ndarray((128, width), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rhs_tile, src=rhs[:, t, n0:n0 + width])
                nisa.nc_matmul(dst=acc, stationary=lhs_tile[:, t, :], moving=rhs_tile)
            res = nl.ndarray((128, width), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.activation(dst=res, op=nl.copy, data=acc)
            nisa.dma_copy(dst=out[m, :, n0:n0 + width], src=res)
    return out
