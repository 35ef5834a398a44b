# nl.static_range is unrolled while tracing (nki-language.md 5): each copy of the body sees its
# variable as a Python int, so float arithmetic on it (`0.5 * k + 1.0`, `float(k) / 4`) is a
# constant of that copy. Nested under an affine_range.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    K = N // 64
    for r in nl.affine_range(M // 128):
        for k in nl.static_range(K):
            t = nl.load(x[r * 128:(r + 1) * 128, k * 64:(k + 1) * 64])
            y = nl.add(nl.multiply(t, 0.5 * k + 1.0), float(k) / 4)
            nl.store(out[r * 128:(r + 1) * 128, k * 64:(k + 1) * 64], value=y)
    return out
