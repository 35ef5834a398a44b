# group_query_tiles.py with the K tile rescaled per query head in place (`k_t[...] = k_t * w[h]`):
# the tile the group's heads would share is written inside the group loop, so nothing of K may
# leave it (V still may). Legality test kernel; q (4, 256, 64), k, v (2, 128, 64), w (4, 128, 1).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k, v, w):
    QH, N, D = q.shape
    KH = k.shape[0]
    GROUP = QH // KH
    out = nl.ndarray((KH, GROUP, N, D), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        kv_h = h // GROUP
        grp = h % GROUP
        w_t = nl.load(w[h])
        for qi in nl.affine_range(N // 128):
            q_t = nl.load(q[h, qi * 128:(qi + 1) * 128, :])
            k_t = nl.ndarray((128, D), dtype=nl.float32, buffer=nl.sbuf)
            k_t[...] = nl.load(k[kv_h])
            k_t[...] = nl.multiply(k_t, w_t)
            kT = nl.transpose(k_t)
            s = nl.matmul(q_t, kT)
            v_t = nl.load(v[kv_h])
            o = nl.matmul(s, v_t)
            nl.store(out[kv_h, grp, qi * 128:(qi + 1) * 128, :], value=nl.copy(o))
    return out
