# inputs: 128x2x512 128x2x640
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # out = lhs^T @ rhs with K on partitions in both; rhs is re-loaded for every 128-row tile.
    # A 128-column tail after the 512-column chunks.
    _, k_tiles, m_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // 128
    full_chunks = n_size // 512
    tail = n_size - full_chunks * 512
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    assert m_tiles % 2 == 0, 'unroll_jam: the trip count of `m` must be a multiple of 2'
    # 2 iterations of `m` per step share the tiles that do not depend on it
    for m_blk in nl.affine_range(m_tiles // 2):
        m_0 = m_blk * 2
        m_1 = m_blk * 2 + 1
        lhs_tile_0 = nl.load(lhs[:, :, m_0 * 128:(m_0 + 1) * 128])
        lhs_tile_1 = nl.load(lhs[:, :, m_1 * 128:(m_1 + 1) * 128])
        for n in nl.affine_range(full_chunks):
            acc_0 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            acc_1 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, n * 512:(n + 1) * 512])
                acc_0 += nisa.nc_matmul(lhs_tile_0[:, t, :], rhs_tile)
                acc_1 += nisa.nc_matmul(lhs_tile_1[:, t, :], rhs_tile)
            res_0 = nl.copy(acc_0, dtype=lhs.dtype)
            res_1 = nl.copy(acc_1, dtype=lhs.dtype)
            nl.store(out[m_0, :, n * 512:(n + 1) * 512], value=res_0)
            nl.store(out[m_1, :, n * 512:(n + 1) * 512], value=res_1)
        if tail > 0:
            start = full_chunks * 512
            acc_0 = nl.zeros((128, tail), dtype=nl.float32, buffer=nl.psum)
            acc_1 = nl.zeros((128, tail), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, start:n_size])
                acc_0 += nisa.nc_matmul(lhs_tile_0[:, t, :], rhs_tile)
                acc_1 += nisa.nc_matmul(lhs_tile_1[:, t, :], rhs_tile)
            res_0 = nl.copy(acc_0, dtype=lhs.dtype)
            res_1 = nl.copy(acc_1, dtype=lhs.dtype)
            nl.store(out[m_0, :, start:n_size], value=res_0)
            nl.store(out[m_1, :, start:n_size], value=res_1)
    return out
