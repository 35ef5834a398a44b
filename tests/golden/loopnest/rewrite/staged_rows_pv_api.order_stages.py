# Newer nki API (destination-first calls): staged_rows_pv.py's nest with four rows per iteration
# in one block buffer each for the transposed probabilities (rows apart by their block index): the
# four rows' transpose nests, then the four rows' matmul nests. order_stages moves each matmul nest
# right after its row's transposes (T0 M0 T1 M1 T2 M2 T3 M3). p (1, 4, 128, 512) as [query tile,
# row, query, key], v (512, 128); out (1, 4, 128, 128).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(p, v):
    q_tiles, rows, _, seq = p.shape
    d = v.shape[1]
    kv_tiles = seq // 128
    out = nl.ndarray((q_tiles, rows, 128, d), dtype=p.dtype, buffer=nl.shared_hbm)
    v_sb = nl.ndarray((128, kv_tiles, d), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.affine_range(kv_tiles):
        nisa.dma_copy(dst=v_sb[:, t, :], src=v[t * 128:(t + 1) * 128, :])
    for qt in nl.affine_range(q_tiles):
        p_sb = nl.ndarray((128, 4, seq), dtype=nl.float32, buffer=nl.sbuf)
        for r in nl.affine_range(4):
            nisa.dma_copy(dst=p_sb[:, r, :], src=p[qt, r])
        p_t = nl.ndarray((128, 4, seq), dtype=nl.float32, buffer=nl.sbuf)
        o_ps_0 = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.psum)
        o_ps_1 = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.psum)
        o_ps_2 = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.psum)
        o_ps_3 = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.psum)
        for t in nl.affine_range(kv_tiles):
            pt_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=pt_ps, data=p_sb[:, 0, t * 128:(t + 1) * 128])
            nisa.tensor_copy(dst=p_t[:, 0, t * 128:(t + 1) * 128], src=pt_ps)
        for t in nl.affine_range(kv_tiles):
            nisa.nc_matmul(dst=o_ps_0, stationary=p_t[:, 0, t * 128:(t + 1) * 128], moving=v_sb[:, t, :],
                           accumulate=(t > 0))
        for t in nl.affine_range(kv_tiles):
            pt_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=pt_ps, data=p_sb[:, 1, t * 128:(t + 1) * 128])
            nisa.tensor_copy(dst=p_t[:, 1, t * 128:(t + 1) * 128], src=pt_ps)
        for t in nl.affine_range(kv_tiles):
            nisa.nc_matmul(dst=o_ps_1, stationary=p_t[:, 1, t * 128:(t + 1) * 128], moving=v_sb[:, t, :],
                           accumulate=(t > 0))
        for t in nl.affine_range(kv_tiles):
            pt_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=pt_ps, data=p_sb[:, 2, t * 128:(t + 1) * 128])
            nisa.tensor_copy(dst=p_t[:, 2, t * 128:(t + 1) * 128], src=pt_ps)
        for t in nl.affine_range(kv_tiles):
            nisa.nc_matmul(dst=o_ps_2, stationary=p_t[:, 2, t * 128:(t + 1) * 128], moving=v_sb[:, t, :],
                           accumulate=(t > 0))
        for t in nl.affine_range(kv_tiles):
            pt_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=pt_ps, data=p_sb[:, 3, t * 128:(t + 1) * 128])
            nisa.tensor_copy(dst=p_t[:, 3, t * 128:(t + 1) * 128], src=pt_ps)
        for t in nl.affine_range(kv_tiles):
            nisa.nc_matmul(dst=o_ps_3, stationary=p_t[:, 3, t * 128:(t + 1) * 128], moving=v_sb[:, t, :],
                           accumulate=(t > 0))
        o_sb = nl.ndarray((128, 4, d), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o_sb[:, 0, :], src=o_ps_0)
        nisa.tensor_copy(dst=o_sb[:, 1, :], src=o_ps_1)
        nisa.tensor_copy(dst=o_sb[:, 2, :], src=o_ps_2)
        nisa.tensor_copy(dst=o_sb[:, 3, :], src=o_ps_3)
        for r in nl.affine_range(4):
            nisa.dma_copy(dst=out[qt, r], src=o_sb[:, r, :])
    return out
