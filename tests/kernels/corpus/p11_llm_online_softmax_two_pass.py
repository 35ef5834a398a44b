import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def rescale(old_sum, old_max, new_max):
    """old_sum * exp(old_max - new_max): the running sum re-expressed against a new max."""
    return nl.multiply(old_sum, nl.exp(nl.subtract(old_max, new_max)))


@nki.jit
def softmax_wide_rows(x, chunk: int = 256):
    """Softmax of rows too wide to hold at once, in two passes over column chunks.

    Pass 1 (nl.sequential_range) carries the running max and the running sum of exponentials
    in Python names; pass 2 normalises each chunk with the final statistics.
    """
    R, C = x.shape
    assert R % 128 == 0, "rows must tile by 128"
    assert C % chunk == 0, "columns must tile by the chunk"
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // 128):
        rows = nl.ds(r * 128, 128)
        running_max = nl.full((128, 1), -1.0e30, dtype=nl.float32)
        running_sum = nl.zeros((128, 1), dtype=nl.float32)
        for c in nl.sequential_range(C // chunk):
            t = nl.load(x[rows, nl.ds(c * chunk, chunk)])
            chunk_max = nl.max(t, axis=1, keepdims=True)
            new_max = nl.maximum(running_max, chunk_max)
            e = nl.exp(nl.subtract(t, new_max))
            running_sum = nl.add(rescale(running_sum, running_max, new_max), nl.sum(e, axis=1, keepdims=True))
            running_max = new_max
        inv = nl.reciprocal(running_sum)
        for c in nl.affine_range(C // chunk):
            t = nl.load(x[rows, nl.ds(c * chunk, chunk)])
            p = nl.multiply(nl.exp(nl.subtract(t, running_max)), inv)
            nl.store(out[rows, nl.ds(c * chunk, chunk)], value=p)
    return out
