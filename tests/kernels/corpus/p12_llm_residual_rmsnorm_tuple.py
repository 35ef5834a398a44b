"""Fused residual add + RMSNorm as an assistant writes it: a helper returning a tuple of tiles
(the new residual stream and the normalized rows), keyword arguments with defaults, an f-string
assert on the shapes, two outputs returned as a tuple, nl.ds slicing."""
from typing import Tuple

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

PMAX = nl.tile_size.pmax


def add_and_norm(x_tile, r_tile, w_tile, eps: float = 1e-6) -> Tuple[nl.ndarray, nl.ndarray]:
    """Return (x + r, rmsnorm(x + r) * w)."""
    h = nl.add(x_tile, r_tile)
    ms = nl.mean(nl.square(h), axis=1, keepdims=True)
    normed = nl.multiply(nl.multiply(h, nl.rsqrt(nl.add(ms, eps))), w_tile)
    return h, normed


@nki.jit
def residual_rmsnorm(x, residual, weight, eps: float = 1e-6):
    N, D = x.shape
    assert residual.shape == x.shape, f"residual {residual.shape} != x {x.shape}"
    assert weight.shape == (1, D)
    h_out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    y_out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    w = nl.broadcast_to(nl.load(weight), shape=(PMAX, D))
    for i in nl.affine_range(N // PMAX):
        rows = nl.ds(i * PMAX, PMAX)
        h, y = add_and_norm(nl.load(x[rows, :]), nl.load(residual[rows, :]), w, eps=eps)
        nl.store(h_out[rows, :], value=h)
        nl.store(y_out[rows, :], value=y)
    return h_out, y_out
