# A selective-scan row nest whose decay takes its per-partition scale as a column picked by an
# integer, `a_t[:, s]` (a [128] vector, one value per partition), as the tutorial-style mamba kernels
# write it: x, y (256, 1024), a (256, 4). Per 128-row tile and state s: exp(x * a[:, s]), the scan
# h = decay * h + y along the row, acc += h * y; acc stored. chunk_rows takes the rows in chunks
# (the scan carried between them): the column is a scalar per partition, like a [128, 1] tile.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y, a):
    rows, cols = x.shape
    states = a.shape[1]
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        x_tile = nl.load(x[r * 128:(r + 1) * 128, 0:cols])
        y_tile = nl.load(y[r * 128:(r + 1) * 128, 0:cols])
        a_tile = nl.load(a[r * 128:(r + 1) * 128, 0:states])
        acc = nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.affine_range(states):
            decay = nisa.activation(op=nl.exp, data=x_tile, scale=a_tile[0:128, s])
            h = nisa.tensor_tensor_scan(decay, y_tile, initial=0.0, op0=np.multiply, op1=np.add)
            acc += nisa.tensor_tensor(h, y_tile, op=nl.multiply)
        nl.store(out[r * 128:(r + 1) * 128, 0:cols], acc)
    return out
