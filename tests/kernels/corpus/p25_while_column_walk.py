# Columns walked by a host `while` loop inside the row loop: the offset bound in the row loop's body,
# a `min()` width for the ragged last block, `col += width` at the end of each block.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

BLOCK = 320


@nki.jit
def softsign(x):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(n // 128):
        col = 0
        while col < d:
            width = min(BLOCK, d - col)
            t = nl.load(x[r * 128:(r + 1) * 128, col:col + width])
            y = nl.divide(t, nl.add(nl.abs(t), 1.0))
            nl.store(out[r * 128:(r + 1) * 128, col:col + width], value=y)
            col += width
    return out
