import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def causal_keep(row0: int, n_cols: int, dtype=nl.float32):
    """A [128, n_cols] tile that is True where column <= row0 + partition index."""
    rows = nisa.iota(row0 + nl.arange(128)[:, None], dtype=dtype)
    cols = nisa.iota(nl.arange(n_cols)[None, :], dtype=dtype)
    return nl.greater_equal(rows, cols)


@nki.jit
def masked_row_sums(scores):
    """Row sums of the lower-triangular part of scores [S, S] (causal attention style).

    Masked-out positions are replaced by 0 with nl.where before the reduction; the kept
    scores are also written out.
    """
    S, S2 = scores.shape
    assert S == S2, "scores must be square"
    kept = nl.ndarray((S, S), dtype=scores.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((S, 1), dtype=scores.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(S // 128):
        s = nl.load(scores[i * 128:(i + 1) * 128, :])
        keep = causal_keep(i * 128, S)
        masked = nl.where(keep, s, 0.0)
        nl.store(kept[i * 128:(i + 1) * 128, :], value=masked)
        nl.store(sums[i * 128:(i + 1) * 128, :], value=nl.sum(masked, axis=1, keepdims=True))
    return kept, sums
