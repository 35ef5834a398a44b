# Indirect DMA gather in the nki.isa style: row indices made on chip by nisa.iota (every
# `stride`-th row of table, starting at `first`) and a nisa.dma_copy from the indirect view.
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit
def kernel(table):
    d = table.shape[1]
    out = nl.ndarray((128, d), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(d)[None, :]
    idx = nisa.iota(3 * i_p + 1, dtype=np.int32)
    rows = nl.ndarray((128, d), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=table[idx, i_f])
    nl.store(out[i_p, i_f], value=rows)
    return out
