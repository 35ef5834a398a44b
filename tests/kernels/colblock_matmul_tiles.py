# Bundled style (named tiles, slices, sizes from the shapes): the matmul nest of
# nkibench/kernels/matmul_M4096_N12288_K5120_0.py at a small size (lhs (2, 128, 2, 128), rhs
# (2, 128, 2048)): 1024-column blocks of rhs loaded once per block, lhs rows transposed per block,
# each block's 512-column halves accumulated in PSUM. free_size and reorder_reuse must find the same
# sites here, in colblock_matmul_grid.py and in colblock_matmul_api.py, and keep the result.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    m_tiles, _, k_tiles, _ = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    block = 1024
    chunk = 2
    for n in nl.affine_range(n_size // block):
        rhs_tiles = nl.ndarray((k_tiles, nl.par_dim(128), block), dtype=rhs.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            rhs_tiles[k] = nl.load(rhs[k, :, n * block:(n + 1) * block])
        for m in nl.affine_range(m_tiles):
            lhs_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
            for c in nl.affine_range(k_tiles // chunk):
                rows = nl.load(lhs[m, :, c * chunk:(c + 1) * chunk, :])
                for j in nl.affine_range(chunk):
                    t_psum = nisa.nc_matmul(rows[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                    lhs_t[c * chunk + j] = nl.copy(t_psum, dtype=lhs.dtype)
            for h in nl.affine_range(block // 512):
                acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    acc += nisa.nc_matmul(lhs_t[k], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                res = nl.copy(acc, dtype=lhs.dtype)
                col = n * block + h * 512
                nl.store(out[m, :, col:col + 512], value=res)
    return out
