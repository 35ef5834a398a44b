# A DMA transpose takes no indirect indices (err_indirect_indices_are_not_supported_with_nki_api).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def gather_transposed(table, ids):
    out = nl.ndarray((64, 128), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    idx = nl.load(ids)
    cols = nl.load_transpose2d(table[idx[i_p, 0], nl.arange(64)[None, :]])
    nl.store(out, value=cols)
    return out


gather_transposed(np.zeros((1000, 64), np.float32), np.zeros((128, 1), np.int32))
