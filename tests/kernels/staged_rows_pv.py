# Two query rows per iteration, each row's P @ V in two stages written as jam_rows' overlap=engines
# leaves them: both rows' transpose nests, then both rows' matmul nests (T0 T1 M0 M1). The matmuls
# of row 0 queue on the Tensor Engine behind row 1's transposes, though they read row 0's only;
# order_stages moves them right after their producer (T0 M0 T1 M1). p (2, 2, 128, 512) as [query
# tile, row, query, key], v (512, 128) as [key, d]; out (2, 2, 128, 128).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(p, v):
    q_tiles, _, _, seq = p.shape
    d = v.shape[1]
    kv_tiles = seq // 128
    out = nl.ndarray((q_tiles, 2, 128, d), dtype=p.dtype, buffer=nl.shared_hbm)
    v_sb = nl.ndarray((kv_tiles, nl.par_dim(128), d), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.affine_range(kv_tiles):
        v_sb[t] = nl.load(v[t * 128:(t + 1) * 128, :])
    for qt in nl.affine_range(q_tiles):
        p_0 = nl.load(p[qt, 0])
        p_1 = nl.load(p[qt, 1])
        acc_0 = nl.zeros((128, d), dtype=nl.float32, buffer=nl.psum)
        acc_1 = nl.zeros((128, d), dtype=nl.float32, buffer=nl.psum)
        p_t_0 = nl.ndarray((kv_tiles, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        p_t_1 = nl.ndarray((kv_tiles, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        # transposed probabilities, row by row
        for t in nl.affine_range(kv_tiles):
            p_t_0[t] = nl.copy(nisa.nc_transpose(p_0[:, t * 128:(t + 1) * 128]))
        for t in nl.affine_range(kv_tiles):
            p_t_1[t] = nl.copy(nisa.nc_transpose(p_1[:, t * 128:(t + 1) * 128]))
        # P @ V, row by row
        for t in nl.affine_range(kv_tiles):
            acc_0 += nisa.nc_matmul(p_t_0[t], v_sb[t])
        for t in nl.affine_range(kv_tiles):
            acc_1 += nisa.nc_matmul(p_t_1[t], v_sb[t])
        nl.store(out[qt, 0], value=nl.copy(acc_0, dtype=p.dtype))
        nl.store(out[qt, 1], value=nl.copy(acc_1, dtype=p.dtype))
    return out
