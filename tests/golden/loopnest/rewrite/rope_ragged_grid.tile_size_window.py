# Legacy style with index grids and masks: a rotary embedding on the two 64-row halves of x (D, S),
# cos / sin (D / 2, S), walked in windows of 768 columns that do not divide S; the last window is
# cut by the mask `col < seq` every load, instruction and store carries. A Python `range` (a
# sequential loop in the legacy API). rope_ragged_tiles.py and rope_ragged_api.py are the same nest.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:64, 0:768]
    for t in range(4):
        x0 = nl.load(x[nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]])
        x1 = nl.load(x[64 + nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]])
        cos_tile = nl.load(cos[nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]])
        sin_tile = nl.load(sin[nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]])
        x0_cos = nl.multiply(x0, cos_tile)
        x1_sin = nl.multiply(x1, sin_tile)
        low = nl.subtract(x0_cos, x1_sin)
        nl.store(out[nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]], value=low)
        x0_sin = nl.multiply(x0, sin_tile)
        x1_cos = nl.multiply(x1, cos_tile)
        high = nl.add(x0_sin, x1_cos)
        nl.store(out[64 + nl.arange(64)[:, None], 2048*t + nl.arange(2048)[None, :]], value=high)
    return out
