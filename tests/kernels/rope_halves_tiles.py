# Tutorial style (nl.* calls, slices, a Python range over column offsets): a rotary embedding on the
# two 64-row halves of x (D, S), cos / sin (D / 2, S), streamed in (64, 2048) tiles. Every
# Vector Engine instruction works on 64 of the 128 partitions; fill_partitions re-lays each tile as
# (128, 1024), two loads / stores per DMA. rope_halves_grid.py and rope_halves_api.py are the same
# nest; at x (128, 262144) it is the NKIBench rope_single_freq_apply.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    for start in range(0, seq, 2048):
        x0 = nl.load(x[0:half, start:start + 2048])
        x1 = nl.load(x[half:d_size, start:start + 2048])
        cos_tile = nl.load(cos[:, start:start + 2048])
        sin_tile = nl.load(sin[:, start:start + 2048])
        low = nl.subtract(nl.multiply(x0, cos_tile), nl.multiply(x1, sin_tile))
        nl.store(out[0:half, start:start + 2048], value=low)
        nl.store(out[half:d_size, start:start + 2048], value=nl.add(nl.multiply(x0, sin_tile), nl.multiply(x1, cos_tile)))
    return out
