import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# list_row_softmax_api.py's nest in the legacy API (neuronxcc.nki), the chains written in the kernel
# body: a row block held as a Python list of column blocks, its running peak and running total
# carried from block to block by `for` loops over the list (the trace unrolls them).
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
        for b in row[1:]:
            peak = nl.maximum(peak, nl.max(b, axis=1, keepdims=True))
        total_parts = nl.ndarray(shape=(128, 4), dtype=nl.float32, buffer=nl.sbuf)
        weights = [nisa.activation_reduce(op=nl.exp, data=nl.subtract(row[b], peak), reduce_op=nl.add, reduce_res=total_parts[:, b:b + 1]) for b in range(4)]
        total = nl.sum(total_parts, axis=1, keepdims=True)
        for c in range(n_blocks):
            nl.store(out[r * ROWS:(r + 1) * ROWS, c * WIDTH:(c + 1) * WIDTH], value=nl.divide(weights[c], total))
    return out
