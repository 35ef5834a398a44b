import nki
import nki.language as nl
import nki.isa as nisa

# A row softmax in a high-level style: each 128-row block is loaded as a Python list of column
# blocks, and a helper over lists normalizes it, carrying the running peak and the running total
# from block to block with plain `for` loops over the list (the trace unrolls them).
ROWS = 128
WIDTH = 256


@nki.jit
def kernel(x):
    R, C = x.shape
    n_blocks = C // WIDTH
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // ROWS):
        row = [nl.load(x[r * ROWS:(r + 1) * ROWS, c * WIDTH:(c + 1) * WIDTH]) for c in range(n_blocks)]
        peak = nl.max(row[0], axis=1, keepdims=True)
        for b in range(1, 4):
            peak[...] = nl.maximum(peak, nl.max(row[b], axis=1, keepdims=True))
        total_parts = nl.ndarray(shape=(128, 4), dtype=nl.float32, buffer=nl.sbuf)
        weights = [nisa.activation_reduce(op=nl.exp, data=row[b] - peak, reduce_op=nl.add, reduce_res=total_parts[:, b:b + 1]) for b in range(4)]
        total = nl.sum(total_parts, axis=1, keepdims=True)
        scale = nl.reciprocal(total)
        soft = [weights[w] * scale for w in range(4)]
        for c in range(n_blocks):
            nl.store(out[r * ROWS:(r + 1) * ROWS, c * WIDTH:(c + 1) * WIDTH], value=soft[c])
    return out
