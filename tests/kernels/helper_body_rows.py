# Legacy nl: the tile math is a module helper `_blend` reading a dict of tiles, called through a
# closure `step(rows)` that loads them with a dict comprehension, from two nests: the full row
# blocks (affine_range) and the ragged last block (a loop over a host list). Opening the helper
# into the kernel cannot be printed (the comprehension's tiles): a move of its statements prints in
# `_blend`'s body, once for both calls (helpers=body, src/loopnest/helper_bodies.h). x, y (200, 512).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import numpy as np

WEIGHT = 0.25


def _blend(t, w=WEIGHT):
    """(1 - w) x + w y, then 2 * mixed - 1 / (mixed^2 + 1)."""
    mixed = nl.add(nl.multiply(t["x"], 1.0 - w), nl.multiply(t["y"], w))
    sq = nl.multiply(mixed, mixed)
    inv = nisa.reciprocal(nisa.tensor_scalar(sq, np.add, 1.0))
    return nl.subtract(nl.multiply(mixed, 2.0), inv)


@nki.jit
def kernel(x, y):
    R, F = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    sources = (("x", x), ("y", y))

    def step(rows):
        t = {name: nl.load(src[rows, :]) for name, src in sources}
        nl.store(out[rows, :], value=_blend(t))

    for b in nl.affine_range(R // P):
        step(nl.ds(b * P, P))
    # the rows past the last full block, if any
    for lo in [(R // P) * P] if R % P else []:
        step(slice(lo, R))
    return out
