import nki
import nki.language as nl

# Row softmax of x @ w in a researcher's high-level style: a row block's logits are a list of column
# chunks made by a comprehension (`nl.matmul` without transpose_x: every call transposes the row block
# again), normalized by a helper that takes and returns lists, stored by a Python `range` loop.
ROWS = 128
COLS = 512


def _chunked_softmax(parts):
    """Softmax along the free axis of a row held as a list of column chunks."""
    top = nl.max(parts[0], axis=1, keepdims=True)
    for i in range(1, len(parts)):
        top = nl.maximum(top, nl.max(parts[i], axis=1, keepdims=True))
    num = [nl.exp(p - top) for p in parts]
    sums = [nl.sum(n, axis=1, keepdims=True) for n in num]
    den = sums[0]
    for s in sums[1:]:
        den = den + s
    return [n / den for n in num]


@nki.jit
def kernel(x, w):
    R, D = x.shape
    C = w.shape[1]
    n_parts = C // COLS
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    for rb in nl.affine_range(R // ROWS):
        xr = nl.load(x[rb * ROWS:(rb + 1) * ROWS, :])
        xr_t = nl.ndarray(shape=(64, 128), dtype=nl.float32, buffer=nl.sbuf)
        xr_t[...] = nl.transpose(x=xr)
        logits = [nl.matmul(xr_t, w_sb[:, p * COLS:(p + 1) * COLS], transpose_x=True) for p in range(n_parts)]
        probs = _chunked_softmax(logits)
        for p in range(n_parts):
            nl.store(out[rb * ROWS:(rb + 1) * ROWS, p * COLS:(p + 1) * COLS], value=probs[p])
    return out
