# Row softmax the way the nki.language page reads: nl.max / nl.sum with axis= and keepdims=True,
# Python operators on tiles with a (P, 1) operand broadcast along the free axis (`x - m`,
# `e / s`), nl.exp; the rows of the last tile ragged (masks from an nl.arange pair).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(d)[None, :]
    for t in nl.affine_range((n + 127) // 128):
        valid = t * 128 + ip < n
        row = nl.load(x[t * 128 + ip, jf], mask=valid)
        m = nl.max(row, axis=1, keepdims=True, mask=valid)
        e = nl.exp(row - m, mask=valid)
        s = nl.sum(e, axis=1, keepdims=True, mask=valid)
        p = e / s
        nl.store(out[t * 128 + ip, jf], value=p, mask=valid)
    return out
