import nki
import nki.language as nl

# A row softmax in a high-level style: each 128-row block is loaded as a Python list of column
# blocks, and a helper over lists normalizes it, carrying the running peak and the running total
# from block to block with plain `for` loops over the list (the trace unrolls them).
ROWS = 128
WIDTH = 256


def _normalize_blocks(blocks):
    """Softmax along the free axis of a row held as a list of column blocks."""
    peak = nl.max(blocks[0], axis=1, keepdims=True)
    for b in blocks[1:]:
        peak = nl.maximum(peak, nl.max(b, axis=1, keepdims=True))
    weights = [nl.exp(b - peak) for b in blocks]
    total = nl.sum(weights[0], axis=1, keepdims=True)
    for w in weights[1:]:
        total = total + nl.sum(w, axis=1, keepdims=True)
    scale = nl.reciprocal(total)
    return [w * scale for w in weights]


@nki.jit
def kernel(x):
    R, C = x.shape
    n_blocks = C // WIDTH
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // ROWS):
        row = [nl.load(x[r * ROWS:(r + 1) * ROWS, c * WIDTH:(c + 1) * WIDTH]) for c in range(n_blocks)]
        soft = _normalize_blocks(row)
        for c in range(n_blocks):
            nl.store(out[r * ROWS:(r + 1) * ROWS, c * WIDTH:(c + 1) * WIDTH], value=soft[c])
    return out
