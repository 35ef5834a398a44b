# Dynamic access written with an nl.mgrid grid: the index tile read at the grid is a [128, 64]
# tile, not a [P, 1] partition index (err_indirect_indices_free_dim: use nl.arange).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def gather(table, ids):
    out = nl.ndarray((128, 64), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:64]
    idx = nl.load(ids)
    rows = nl.load(table[idx[i_p, 0], i_f])
    nl.store(out, value=rows)
    return out


gather(np.zeros((1000, 64), np.float32), np.zeros((128, 1), np.int32))
