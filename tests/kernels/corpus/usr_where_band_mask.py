# A banded score mask as a user writes it with nl.where: the row and column of every element come
# from nisa.iota on index expressions, the band condition is a compound predicate of two
# comparisons joined with `&` on tiles, and the ragged last row tile (200 rows) is guarded by a
# compound `mask=` of two index comparisons. The column offset of the band is a scalar argument.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(scores, bias, width=8):
    M, N = scores.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(N)[None, :]
    b = nl.load(bias)
    for r in nl.affine_range((M + 127) // 128):
        row = r * 128 + i_p
        inside = (row < M) & (i_f < N)
        s = nl.load(scores[row, i_f], mask=inside)
        rows = nisa.iota(row + 0 * i_f, dtype=nl.float32)
        cols = nisa.iota(i_f + 0 * i_p, dtype=nl.float32)
        d = nl.subtract(cols, rows, mask=inside)
        keep = (d <= float(width)) & (d >= -float(width))
        shifted = nl.add(s, b.broadcast_to((128, N)), mask=inside)
        y = nl.where(keep, shifted, -30.0, mask=inside)
        nl.store(out[row, i_f], value=y, mask=inside)
    return out
