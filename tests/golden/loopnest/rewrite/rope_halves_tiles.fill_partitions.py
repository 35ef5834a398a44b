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
        x0 = nl.ndarray(shape=(128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        x0[0:64, :] = nl.load(x[0:half, start:start + 1024])
        x0[64:128, :] = nl.load(x[0:half, start + 1024:start + 2048])
        x1 = nl.ndarray(shape=(128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        x1[0:64, :] = nl.load(x[half:d_size, start:start + 1024])
        x1[64:128, :] = nl.load(x[half:d_size, start + 1024:start + 2048])
        cos_tile = nl.ndarray(shape=(128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        cos_tile[0:64, :] = nl.load(cos[:, start:start + 1024])
        cos_tile[64:128, :] = nl.load(cos[:, start + 1024:start + 2048])
        sin_tile = nl.ndarray(shape=(128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        sin_tile[0:64, :] = nl.load(sin[:, start:start + 1024])
        sin_tile[64:128, :] = nl.load(sin[:, start + 1024:start + 2048])
        low = nl.subtract(nl.multiply(x0, cos_tile), nl.multiply(x1, sin_tile))
        nl.store(out[0:half, start:start + 1024], value=low[0:64, :])
        nl.store(out[0:half, start + 1024:start + 2048], value=low[64:128, :])
        out_tile = nl.add(nl.multiply(x0, sin_tile), nl.multiply(x1, cos_tile))
        nl.store(out[half:d_size, start:start + 1024], value=out_tile[0:64, :])
        nl.store(out[half:d_size, start + 1024:start + 2048], value=out_tile[64:128, :])
    return out
