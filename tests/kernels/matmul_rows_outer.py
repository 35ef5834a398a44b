# The bundled matmul (nkibench/kernels/matmul_M4096_N12288_K5120_0.py) with its rows made the outer loop,
# blocked by 4: `accelopt rewrite --kernel <bundled> --apply "reorder_reuse line=20 anchor=12x40/load#0 factor=4"`.
# Its reorder_reuse sites reorder back (the column blocks outer again, each row transposed once per
# block: 1.08-1.44x the Tensor Engine instructions), which the planner weighs against the Tensor Engine's busy time.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (M/128, 128, K/128, 128) = row tile, row, K tile, k; rhs: (K/128, 128, N).
    # For each 1024-column block the rhs K tiles are loaded once; every lhs row tile is loaded in
    # chunks of 8 K tiles, transposed on the Tensor Engine, then each 512-column half accumulates
    # all K tiles in one PSUM tile.
    m_tiles, _, k_tiles, _ = lhs.shape
    _, _, n_size = rhs.shape
    out = nl.ndarray((m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    block = 1024
    chunk = 8
    for m_blk in nl.affine_range(8):
        lhs_t_0 = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
        lhs_t_1 = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
        lhs_t_2 = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
        lhs_t_3 = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=lhs.dtype, buffer=nl.sbuf)
        for c in nl.affine_range(k_tiles // chunk):
            rows_0 = nl.load(lhs[4*m_blk, :, c * chunk:(c + 1) * chunk, :])
            rows_1 = nl.load(lhs[4*m_blk + 1, :, c * chunk:(c + 1) * chunk, :])
            rows_2 = nl.load(lhs[4*m_blk + 2, :, c * chunk:(c + 1) * chunk, :])
            rows_3 = nl.load(lhs[4*m_blk + 3, :, c * chunk:(c + 1) * chunk, :])
            for j in nl.affine_range(chunk):
                t_psum_0 = nisa.nc_matmul(rows_0[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                t_psum_1 = nisa.nc_matmul(rows_1[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                t_psum_2 = nisa.nc_matmul(rows_2[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                t_psum_3 = nisa.nc_matmul(rows_3[:, j, :], ident, is_moving_onezero=True, is_transpose=True)
                lhs_t_0[8*c + j, :, :] = nl.copy(t_psum_0, dtype=lhs.dtype)
                lhs_t_1[8*c + j, :, :] = nl.copy(t_psum_1, dtype=lhs.dtype)
                lhs_t_2[8*c + j, :, :] = nl.copy(t_psum_2, dtype=lhs.dtype)
                lhs_t_3[8*c + j, :, :] = nl.copy(t_psum_3, dtype=lhs.dtype)
        for n in nl.affine_range(12):
            rhs_tiles = nl.ndarray((k_tiles, nl.par_dim(128), block), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(k_tiles):
                rhs_tiles[k] = nl.load(rhs[k, :, n * block:(n + 1) * block])
            for h in nl.affine_range(block // 512):
                acc_0 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                acc_1 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                acc_2 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                acc_3 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    acc_0[...] += nisa.nc_matmul(lhs_t_0[k, :, :], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                    acc_1[...] += nisa.nc_matmul(lhs_t_1[k, :, :], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                    acc_2[...] += nisa.nc_matmul(lhs_t_2[k, :, :], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                    acc_3[...] += nisa.nc_matmul(lhs_t_3[k, :, :], rhs_tiles[k, :, h * 512:(h + 1) * 512])
                res_0 = nl.copy(acc_0, dtype=lhs.dtype)
                res_1 = nl.copy(acc_1, dtype=lhs.dtype)
                res_2 = nl.copy(acc_2, dtype=lhs.dtype)
                res_3 = nl.copy(acc_3, dtype=lhs.dtype)
                col = n * block + h * 512
                nl.store(out[4*m_blk, :, col:col + 512], value=res_0)
                nl.store(out[4*m_blk + 1, :, col:col + 512], value=res_1)
                nl.store(out[4*m_blk + 2, :, col:col + 512], value=res_2)
                nl.store(out[4*m_blk + 3, :, col:col + 512], value=res_3)
    return out
