# Row tiles walked by a `while` loop whose bound is known while tracing, and a fixed number of
# halvings by a nested `while` (Python semantics hold for loops, nki-language.md 12.1); the row tile
# count asked with `x.dtype in (...)` style host checks.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit
def kernel(x):
    M, N = x.shape
    assert x.dtype in (np.float32, "float32")
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    r = 0
    while r * 128 < M:
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        k = 0
        y = t
        while k < 3:
            y = nl.multiply(y, 0.5)
            k += 1
        nl.store(out[r * 128:(r + 1) * 128, :], value=y)
        r += 1
    return out
