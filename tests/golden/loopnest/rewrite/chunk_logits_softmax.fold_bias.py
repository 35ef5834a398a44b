import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# chunk_logits_softmax_api.py's nest in the legacy API (neuronxcc.nki). Row softmax of x @ w: a row block's logits are a list of column
# chunks made by a comprehension (`nl.matmul` without transpose_x: every call transposes the row block
# again), normalized by a helper that takes and returns lists, stored by a Python `range` loop.
ROWS = 128
COLS = 512


@nki.jit
def kernel(x, w):
    R, D = x.shape
    C = w.shape[1]
    n_parts = C // COLS
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    for rb in nl.affine_range(R // ROWS):
        xr = nl.load(x[rb * ROWS:(rb + 1) * ROWS, :])
        logits = [nl.matmul(xr, w_sb[:, p * COLS:(p + 1) * COLS]) for p in range(n_parts)]
        top = nl.max(logits[0], axis=1, keepdims=True)
        for i in range(1, 4):
            top[...] = nl.maximum(top, nl.max(logits[i], axis=1, keepdims=True))
        num = [nisa.activation(op=nl.exp, data=logits[p], bias=nl.multiply(x=top, y=-1.0)) for p in range(4)]
        sums = [nl.sum(num[n], axis=1, keepdims=True) for n in range(4)]
        den = sums[0]
        den = sums[0] + sums[1]
        den_2 = den + sums[2]
        den_3 = den_2 + sums[3]
        probs = [num[n] / den_3 for n in range(4)]
        for p in range(n_parts):
            nl.store(out[rb * ROWS:(rb + 1) * ROWS, p * COLS:(p + 1) * COLS], value=probs[p])
    return out
