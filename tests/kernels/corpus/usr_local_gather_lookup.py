# A per-group table lookup with GpSimd's local_gather: the table is laid out over the 16
# partitions of each GpSimd core (core g holds rows g*16 .. g*16+15 of every 16-row block), the
# uint16 indices of each partition address its core's table, and each index fetches a block of
# num_elem_per_idx contiguous entries. Index tiles are loaded with dtype= kept as uint16; the
# gathered rows are scaled on the Vector Engine before the store.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

BLOCK = 4


@nki.jit
def kernel(table, index, scale):
    P, F = table.shape
    _, n_idx = index.shape
    out = nl.ndarray((P, n_idx * BLOCK), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(table)
    idx = nl.load(index, dtype=nl.uint16)
    rows = nisa.local_gather(t, idx, num_elem_per_idx=BLOCK)
    nl.store(out, value=nl.multiply(rows, scale))
    return out
