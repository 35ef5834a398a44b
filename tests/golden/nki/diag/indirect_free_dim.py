# An index tile on a free dim of the HBM view: dynamic indices are only allowed on the
# partition/block dim (err_indirect_indices_free_dim).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def gather_columns(table, ids):
    out = nl.ndarray((128, 64), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    idx = nl.load(ids)
    cols = nl.load(table[i_p, idx[i_p, 0]])
    nl.store(out, value=cols)
    return out


gather_columns(np.zeros((128, 1000), np.float32), np.zeros((128, 1), np.int32))
