import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def causal_softmax(scores):
    # Row-wise softmax of a (S, S) score matrix under a causal mask: column j of row i is
    # kept when j <= i. The row and column numbers are materialised with nisa.iota from
    # arange expressions (the row one offset by the tile's base), compared as tiles, and
    # the masked entries replaced by a large negative number with nl.where.
    S, S2 = scores.shape
    out = nl.ndarray((S, S2), dtype=scores.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(S2)[None, :]
    cols = nisa.iota(i_f + 0 * i_p, dtype=nl.float32)   # (128, S2): j on every row
    for t in nl.affine_range(S // 128):
        rows = nisa.iota(t * 128 + i_p + 0 * i_f, dtype=nl.float32)  # (128, S2): i on row i
        s = nl.load(scores[t * 128 + i_p, i_f])
        keep = nl.less_equal(cols, rows)
        masked = nl.where(keep, s, -30000.0)
        m = nl.max(masked, axis=1, keepdims=True)
        e = nl.exp(nl.subtract(masked, m))
        z = nl.sum(e, axis=1, keepdims=True)
        nl.store(out[t * 128 + i_p, i_f], value=nl.divide(e, z))
    return out
