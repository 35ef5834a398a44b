import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

WINDOW = 64


@nki.jit
def sliding_window_max(scores):
    """Row max of scores [S, S] over a causal sliding window: column j is kept for row r
    when r - WINDOW < j <= r. Uses nisa.range_select with per-partition bounds made by iota.
    """
    S, T = scores.shape
    assert S % 128 == 0
    out = nl.ndarray((S, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(S // 128):
        s = nl.load(scores[i * 128:(i + 1) * 128, :])
        row = nisa.iota(i * 128 + nl.arange(128)[:, None], dtype=nl.float32)
        lo = nl.subtract(row, float(WINDOW))
        mx = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.range_select(s, comp_op0=nl.greater, comp_op1=nl.less_equal, bound0=lo, bound1=row,
                          reduce_res=mx, reduce_op=nl.maximum, range_start=0.0)
        nl.store(out[i * 128:(i + 1) * 128, :], value=mx)
    return out
