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
    for m in nl.affine_range(m_tiles):
        lhs_tile = nl.load(lhs[:, :, m * 128:(m + 1) * 128])
        for n in nl.affine_range(full_chunks):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, n * 512:(n + 1) * 512])
                acc += nisa.nc_matmul(lhs_tile[:, t, :], rhs_tile)
            res = nl.copy(acc, dtype=lhs.dtype)
            nl.store(out[m, :, n * 512:(n + 1) * 512], value=res)
        if tail > 0:
            start = full_chunks * 512
            acc = nl.zeros((128, tail), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[:, t, start:n_size])
                acc += nisa.nc_matmul(lhs_tile[:, t, :], rhs_tile)
            res = nl.copy(acc, dtype=lhs.dtype)
            nl.store(out[m, :, start:n_size], value=res)
    return out
