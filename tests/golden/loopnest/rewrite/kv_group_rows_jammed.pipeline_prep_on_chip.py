# Attention of two query heads that share one KV head, the two heads jammed into each query-tile
# iteration (legacy API, as jam_rows leaves a grouped-query kernel): every statement of a head
# twice (`_0`, `_1`), K^T and V once. q (2, 128, 2, 128) as [query tile, row, head, d], k and v
# (256, 128) as [key, d]; out (2, 2, 128, 128) as [head, query tile, row, d].
# pipeline_prep takes both heads' load -> transpose -> copy as the preparation (the query loop) and
# both heads' transposes and copies of P (the key-tile loop, source=on_chip); defer_normalization
# scales both heads' results at once (places=2). Before session 30 the preparation ended at the
# first head's transpose, whose PSUM tile the second half read: neither loop had a site.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(q, k, v):
    q_tiles, _, heads, d_head = q.shape
    seq = k.shape[0]
    kv_tiles = seq // 128
    scale = 1.0 / (d_head ** 0.5)
    out = nl.ndarray((heads, q_tiles, 128, d_head), dtype=q.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    k_t = nl.ndarray((nl.par_dim(d_head), seq), dtype=nl.float32, buffer=nl.sbuf)
    v_tiles = nl.ndarray((kv_tiles, nl.par_dim(128), d_head), dtype=v.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(kv_tiles):
        k_tile = nl.load(k[t * 128:(t + 1) * 128, :])
        k_psum = nisa.nc_matmul(k_tile, ident, is_moving_onezero=True, is_transpose=True)
        k_t[:, t * 128:(t + 1) * 128] = nl.copy(k_psum, dtype=nl.float32)
        v_tiles[t] = nl.load(v[t * 128:(t + 1) * 128, :])
    for qt in nl.affine_range(q_tiles):
        q_tile_0 = nl.load(q[qt, :, 0, :])
        q_tile_1 = nl.load(q[qt, :, 1, :])
        q_psum_0 = nisa.nc_matmul(q_tile_0, ident, is_moving_onezero=True, is_transpose=True)
        q_psum_1 = nisa.nc_matmul(q_tile_1, ident, is_moving_onezero=True, is_transpose=True)
        q_t_0 = nl.copy(q_psum_0, dtype=nl.float32)
        q_t_1 = nl.copy(q_psum_1, dtype=nl.float32)
        s_0 = nisa.nc_matmul(q_t_0, k_t)
        s_1 = nisa.nc_matmul(q_t_1, k_t)
        scores_0 = nisa.tensor_scalar(data=s_0, op0=nl.multiply, operand0=scale)
        scores_1 = nisa.tensor_scalar(data=s_1, op0=nl.multiply, operand0=scale)
        neg_max_0 = nisa.tensor_reduce(nl.max, data=scores_0, axis=[1], negate=True, keepdims=True)
        neg_max_1 = nisa.tensor_reduce(nl.max, data=scores_1, axis=[1], negate=True, keepdims=True)
        probs_0 = nisa.activation(op=nl.exp, data=scores_0, bias=neg_max_0, scale=1.0)
        probs_1 = nisa.activation(op=nl.exp, data=scores_1, bias=neg_max_1, scale=1.0)
        row_sum_0 = nisa.tensor_reduce(nl.add, data=probs_0, axis=[1], keepdims=True)
        row_sum_1 = nisa.tensor_reduce(nl.add, data=probs_1, axis=[1], keepdims=True)
        inv_sum_0 = nisa.reciprocal(data=row_sum_0)
        inv_sum_1 = nisa.reciprocal(data=row_sum_1)
        probs_n_0 = nisa.tensor_scalar(data=probs_0, op0=nl.multiply, operand0=inv_sum_0)
        probs_n_1 = nisa.tensor_scalar(data=probs_1, op0=nl.multiply, operand0=inv_sum_1)
        acc_0 = nl.zeros((128, d_head), dtype=nl.float32, buffer=nl.psum)
        acc_1 = nl.zeros((128, d_head), dtype=nl.float32, buffer=nl.psum)
        p_t_0 = nl.ndarray(shape=(2, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        p_t_1 = nl.ndarray(shape=(2, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for t in nl.affine_range(kv_tiles):
            p_psum_0 = nisa.nc_matmul(probs_n_0[:, t * 128:(t + 1) * 128], ident, is_moving_onezero=True,
                                      is_transpose=True)
            p_psum_1 = nisa.nc_matmul(probs_n_1[:, t * 128:(t + 1) * 128], ident, is_moving_onezero=True,
                                      is_transpose=True)
            p_t_0[t, :, :] = nl.copy(p_psum_0, dtype=nl.float32)
            p_t_1[t, :, :] = nl.copy(p_psum_1, dtype=nl.float32)
        for t in nl.affine_range(kv_tiles):
            acc_0 += nisa.nc_matmul(p_t_0[t, :, :], v_tiles[t])
            acc_1 += nisa.nc_matmul(p_t_1[t, :, :], v_tiles[t])
        res_0 = nl.copy(acc_0, dtype=q.dtype)
        res_1 = nl.copy(acc_1, dtype=q.dtype)
        nl.store(out[0, qt], value=res_0)
        nl.store(out[1, qt], value=res_1)
    return out
