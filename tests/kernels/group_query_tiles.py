# Grouped-query attention scores and values without softmax, per query head and 128-row query tile
# (legacy API): out[kv, g, rows] = (q[h, rows] @ k[kv]^T) @ v[kv] with kv = h // GROUP, g = h % GROUP.
# q (4, 256, 64), k and v (2, 128, 64); out (2, 2, 256, 64). K (its load and transpose) and V are
# loaded per query head and tile although the heads of one group share them: the head loop split
# by group (groups=split) lets the hoists take them out of the group loop.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k, v):
    QH, N, D = q.shape
    KH = k.shape[0]
    GROUP = QH // KH
    out = nl.ndarray((KH, GROUP, N, D), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        kv_h = h // GROUP
        grp = h % GROUP
        for qi in nl.affine_range(N // 128):
            q_t = nl.load(q[h, qi * 128:(qi + 1) * 128, :])
            k_t = nl.load(k[kv_h])
            kT = nl.transpose(k_t)
            s = nl.matmul(q_t, kT)
            v_t = nl.load(v[kv_h])
            o = nl.matmul(s, v_t)
            nl.store(out[kv_h, grp, qi * 128:(qi + 1) * 128, :], value=nl.copy(o))
    return out
