import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def bmm_softmax(q, k):
    """softmax(Q K^T) per batch with the (B, S, D) inputs viewed as (B*S, D) by .reshape, the
    row max and sum kept as (P, 1) tiles (keepdims=True) and widened with the tile method
    .broadcast_to before the subtract and divide, and the output reshaped back on return."""
    B, S, D = q.shape
    qf = q.reshape((B * S, D))
    kf = k.reshape((B * S, D))
    out = nl.ndarray((B * S, S), dtype=nl.float32, buffer=nl.shared_hbm)
    for bi in nl.affine_range(B):
        kT = nl.load_transpose2d(kf[bi * S:(bi + 1) * S, :])
        for r in nl.affine_range(S // 128):
            row0 = bi * S + r * 128
            qT = nl.load_transpose2d(qf[row0:row0 + 128, :])
            sc = nl.copy(nl.matmul(qT, kT, transpose_x=True))
            mx = nl.max(sc, axis=1, keepdims=True)
            e = nl.exp(nl.subtract(sc, mx.broadcast_to((128, S))))
            tot = nl.sum(e, axis=1, keepdims=True)
            nl.store(out[row0:row0 + 128, :], value=nl.divide(e, tot.broadcast_to((128, S))))
    return out.reshape((B, S, S))
