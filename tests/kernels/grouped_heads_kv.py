# Grouped-query attention scores and values without softmax, one query head per iteration (legacy
# API): out[h] = (q[h] @ k[h // group]^T) @ v[h // group].  q (4, 128, 64) as [head, row, d],
# k and v (2, 128, 64) as [kv head, key, d]; out (4, 128, 64).  The query heads of one group read
# the same K and V head: jam_rows by the group size loads and transposes them once per group.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k, v):
    QH, P, D = q.shape
    KH = k.shape[0]
    group = QH // KH
    out = nl.ndarray((QH, P, D), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        kv = h // group
        q_t = nl.load(q[h])
        k_t = nl.load(k[kv])
        kT = nl.transpose(k_t)
        s = nl.matmul(q_t, kT)
        v_t = nl.load(v[kv])
        o = nl.matmul(s, v_t)
        nl.store(out[h], value=nl.copy(o))
    return out
