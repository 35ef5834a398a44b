# A functional programmer's rotary embedding (session 46, found on an outside author's kernels):
# pure helpers returning tuples of tiles, the halves loaded by comprehensions unpacked into names,
# and the rotated pair stored by a host loop over `zip(halves, rotate(...))`. The helper returns
# its two values unnamed; the loop reads each in one copy of its body.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

WIDTH = 2048


def rotate(x0, x1, cos, sin):
    return (x0 * cos - x1 * sin, x0 * sin + x1 * cos)


def halves(d):
    h = d // 2
    return (nl.ds(0, h), nl.ds(h, h))


@nki.jit
def rope_pairs_kernel(x, cos, sin):
    d, n = x.shape
    out = nl.ndarray((d, n), dtype=x.dtype, buffer=nl.shared_hbm)
    lo, hi = halves(d)
    for w in nl.affine_range(n // WIDTH):
        cols = nl.ds(w * WIDTH, WIDTH)
        x0, x1 = [nl.load(x[rows, cols]) for rows in (lo, hi)]
        c, s = [nl.load(t[:, cols]) for t in (cos, sin)]
        for rows, tile in zip((lo, hi), rotate(x0, x1, c, s)):
            nl.store(out[rows, cols], value=tile)
    return out
