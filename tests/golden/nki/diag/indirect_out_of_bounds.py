# An index outside the gathered dim: the hardware raises on an out-of-bounds indirect DMA, so the
# run stops with an index error naming the index and the partition that held it.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def gather(table, ids):
    out = nl.ndarray((128, 64), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    idx = nl.load(ids)
    rows = nl.load(table[idx[i_p, 0], nl.arange(64)[None, :]])
    nl.store(out, value=rows)
    return out


gather(np.zeros((1000, 64), np.float32), np.arange(900, 1028, dtype=np.int32).reshape(128, 1))
