# An assignment copy through an index tile (runtime indices) is not a DMA the compiler makes
# (err_copy_dynamic_indirect_indices_not_natively_supported): scatter with nl.store.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def scatter(table, ids, rows_in):
    i_p = nl.arange(128)[:, None]
    idx = nl.load(ids)
    rows = nl.load(rows_in)
    table[idx[i_p, 0], nl.arange(64)[None, :]] = rows
    return table


scatter(np.zeros((1000, 64), np.float32), np.zeros((128, 1), np.int32), np.zeros((128, 64), np.float32))
