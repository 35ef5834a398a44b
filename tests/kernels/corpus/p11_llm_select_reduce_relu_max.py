import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def gated_row_max(x, gate):
    """Keep x where gate > 0 (else -1e4) and take each row's maximum of the kept values.

    Written with nisa.select_reduce: the selection and the row max in one Vector Engine
    instruction (reduce_res receives the per-partition maximum).
    """
    n, d = x.shape
    assert gate.shape == x.shape
    selected = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    row_max = nl.ndarray((n, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        rows = nl.ds(i * 128, 128)
        xt = nl.load(x[rows, :])
        pred = nl.greater(nl.load(gate[rows, :]), 0.0, dtype=nl.uint8)
        mx = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        sel = nisa.select_reduce(pred, xt, -1.0e4, reduce_res=mx, reduce_op=nl.maximum)
        nl.store(selected[rows, :], value=sel)
        nl.store(row_max[rows, :], value=mx)
    return selected, row_max
