"""SwiGLU activation, silu(gate) * up, written the way an assistant writes NKI kernels:
module-level constants, typed helpers with default arguments (one returning a tile), shape
asserts with messages, math.ceil for the tile count and a ragged last tile by min()."""
import math

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

TILE_ROWS: int = 128
MAX_FREE: int = 512


def load_rows(src, start: int, size: int, dtype=nl.float32):
    """Load `size` rows of `src` starting at `start` into an SBUF tile."""
    return nl.load(src[nl.ds(start, size), :], dtype=dtype)


def silu(t, beta: float = 1.0):
    """x * sigmoid(beta * x), the sigmoid on the Scalar Engine."""
    s = nisa.activation(op=nl.sigmoid, data=t, scale=beta)
    return nl.multiply(t, s)


@nki.jit
def swiglu_kernel(gate, up):
    """gate, up: [N, D] in HBM. Returns silu(gate) * up."""
    N, D = gate.shape
    assert up.shape == (N, D), f"up must be {(N, D)}, got {up.shape}"
    assert D <= MAX_FREE, "one tile per row block"
    out = nl.ndarray((N, D), dtype=gate.dtype, buffer=nl.shared_hbm)
    num_tiles = math.ceil(N / TILE_ROWS)
    for i in nl.affine_range(num_tiles):
        start = i * TILE_ROWS
        size = min(TILE_ROWS, N - start)
        g = load_rows(gate, start, size)
        u = load_rows(up, start, size)
        nl.store(out[nl.ds(start, size), :], value=nl.multiply(silu(g), u))
    return out
