# Tiles style (a name per tile, loaded where it is used): a selective-scan row nest at a small size
# (x, y (256, 1024)): per 128-row tile, exp(x / 1024) on the Scalar Engine, the scan
# h = exp(x / 1024) * h + y along the row on the Vector Engine, h * y stored. chunk_rows must give
# the same nest here, in scan_rows_grid.py and in scan_rows_api.py (the same nest in two other
# styles): every tile the chunk loop writes is one per chunk, whatever the style declares it as.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        x_tile = nl.load(x[r * 128:(r + 1) * 128, :])
        y_tile = nl.load(y[r * 128:(r + 1) * 128, :])
        decay = nisa.activation(op=nl.exp, data=x_tile, scale=1.0 / 1024)
        h = nisa.tensor_tensor_scan(decay, y_tile, initial=0, op0=nl.multiply, op1=nl.add)
        hy = nisa.tensor_tensor(h, y_tile, op=nl.multiply)
        nl.store(out[r * 128:(r + 1) * 128, :], hy)
    return out
