# Column blocks walked through a Python list of their offsets (`range(len(col_offsets))`, which the
# legacy compiler runs in order), rows through `nl.ds` slices whose ragged last block reaches past
# the end under a mask.
import math

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

ROWS = 128
COLS = 256


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    col_offsets = [j * COLS for j in range(N // COLS)]
    lane = nl.arange(ROWS)[:, None]
    for i in nl.affine_range(math.ceil(M / ROWS)):
        in_bounds = (i * ROWS + lane < M)
        for j in range(len(col_offsets)):
            r = nl.ds(i * ROWS, ROWS)
            c = nl.ds(col_offsets[j], COLS)
            t = nl.load(x[r, c], mask=in_bounds)
            y = nl.multiply(t, 2.0, mask=in_bounds)
            nl.store(out[r, c], value=y, mask=in_bounds)
    return out
