# group_query_tiles.py with the KV head read as `(h + 1) // GROUP` (a head's neighbour's group):
# it varies inside any split of the head loop by GROUP, so the loop is not split and no hoist
# leaves a group loop. Legality test kernel; q (4, 256, 64), k, v (3, 128, 64).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(q, k, v):
    QH, N, D = q.shape
    GROUP = 2
    out = nl.ndarray((QH, N, D), dtype=nl.float32, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        kv_h = (h + 1) // GROUP
        for qi in nl.affine_range(N // 128):
            q_t = nl.load(q[h, qi * 128:(qi + 1) * 128, :])
            k_t = nl.load(k[kv_h])
            kT = nl.transpose(k_t)
            s = nl.matmul(q_t, kT)
            v_t = nl.load(v[h // GROUP])
            o = nl.matmul(s, v_t)
            nl.store(out[h, qi * 128:(qi + 1) * 128, :], value=nl.copy(o))
    return out
