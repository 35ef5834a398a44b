# Legacy API, a researcher's port: exp of a row block in column blocks whose width divides the row
# exactly without being a power of two (`COLS = 7168 // 4`, 1792 columns; x: (128, 7168)), the block
# count ceil-divided and the tail masked. free_size offers the width quartered, halved and doubled
# (448 / 896 / 3584), each a whole fraction or multiple of the written one.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

ROWS = 128
COLS = 7168 // 4


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n_cols = x.shape[1]
    n_blocks = (n_cols + COLS - 1) // COLS
    for block in nl.affine_range(n_blocks):
        rows = nl.arange(ROWS)[:, None]
        cols = block * COLS + nl.arange(COLS)[None, :]
        row_block = nl.load(x[rows, cols], mask=(cols < n_cols))
        nl.store(out[rows, cols], value=nl.exp(row_block), mask=(cols < n_cols))
    return out
