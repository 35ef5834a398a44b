import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def load_slice(src, b: int, rows: int = 128):
    """Load batch slice `b` of src [B, rows, D] as one tile."""
    return nl.load(src[b, 0:rows, :])


@nki.jit
def sum_over_batch(x):
    """Sum x [B, 128, D] over its first axis with an unrolled nl.static_range reduction.

    The batch count is small and known at trace time, so the reduction is unrolled: the
    accumulator is rebound once per batch slice.
    """
    B, P, D = x.shape
    assert P == 128, "the partition axis must be exactly 128"
    assert B >= 1
    out = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = load_slice(x, 0)
    for b in nl.static_range(1, B):
        acc = nl.add(acc, load_slice(x, b))
    nl.store(out, value=nl.multiply(acc, 1.0 / B))
    return out
