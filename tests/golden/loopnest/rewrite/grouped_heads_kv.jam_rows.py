# Grouped-query attention scores and values without softmax, one query head per iteration (legacy
# API): out[h] = (q[h] @ k[h // group]^T) @ v[h // group].  q (4, 128, 64) as [head, row, d],
# k and v (2, 128, 64) as [kv head, key, d]; out (4, 128, 64).  The query heads of one group read
# the same K and V head: jam_rows by the group size loads and transposes them once per group.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k, v):
    QH, P, D = q.shape
    out = nl.ndarray((QH, P, D), dtype=nl.float32, buffer=nl.shared_hbm)
    for h_blk in nl.affine_range(QH // 2):
        q_t_0 = nl.load(q[2*h_blk, :, :])
        q_t_1 = nl.load(q[2*h_blk + 1, :, :])
        k_t = nl.load(k[h_blk, :, :])
        kT = nl.transpose(k_t)
        s_0 = nl.matmul(q_t_0, kT)
        s_1 = nl.matmul(q_t_1, kT)
        v_t = nl.load(v[h_blk, :, :])
        o_0 = nl.matmul(s_0, v_t)
        o_1 = nl.matmul(s_1, v_t)
        nl.store(out[2*h_blk, :, :], value=nl.copy(o_0))
        nl.store(out[2*h_blk + 1, :, :], value=nl.copy(o_1))
    return out
