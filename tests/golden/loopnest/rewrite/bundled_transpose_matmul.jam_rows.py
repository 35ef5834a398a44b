import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (128, K/128, M), rhs: (128, K/128, N): row k of the problem is p * (K/128) + t, so the
    # 128 partitions of lhs[:, t, :] and rhs[:, t, :] already hold matching K rows and no
    # transpose is needed. rhs is re-loaded for every 128-row output tile.
    _, k_tiles, m_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // 128
    full_chunks = n_size // 512
    tail = n_size - full_chunks * 512
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for m_blk in nl.affine_range(m_tiles // 2):
        lhs_tile_0 = nl.load(lhs[:, :, 256*m_blk:256*m_blk + 128])
        lhs_tile_1 = nl.load(lhs[:, :, 256*m_blk + 128:256*m_blk + 256])
        for n in nl.affine_range(full_chunks):
            acc_0 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            acc_1 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, n * 512:(n + 1) * 512])
                acc_0[...] += nisa.nc_matmul(lhs_tile_0[:, t, :], rhs_tile)
                acc_1[...] += nisa.nc_matmul(lhs_tile_1[:, t, :], rhs_tile)
            res_0 = nl.copy(acc_0, dtype=lhs.dtype)
            res_1 = nl.copy(acc_1, dtype=lhs.dtype)
            nl.store(out[2*m_blk, :, n * 512:(n + 1) * 512], value=res_0)
            nl.store(out[2*m_blk + 1, :, n * 512:(n + 1) * 512], value=res_1)
        if tail > 0:
            start = full_chunks * 512
            acc_0 = nl.zeros((128, tail), dtype=nl.float32, buffer=nl.psum)
            acc_1 = nl.zeros((128, tail), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, start:n_size])
                acc_0[...] += nisa.nc_matmul(lhs_tile_0[:, t, :], rhs_tile)
                acc_1[...] += nisa.nc_matmul(lhs_tile_1[:, t, :], rhs_tile)
            res_0 = nl.copy(acc_0, dtype=lhs.dtype)
            res_1 = nl.copy(acc_1, dtype=lhs.dtype)
            nl.store(out[2*m_blk, :, start:n_size], value=res_0)
            nl.store(out[2*m_blk + 1, :, start:n_size], value=res_1)
    return out
