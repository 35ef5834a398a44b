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
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    W = 768
    i_p, i_f = nl.mgrid[0:64, 0:768]
    for t in range((seq + W - 1) // W):
        col = t * W + i_f
        x0 = nl.load(x[i_p, col], mask=(col < seq))
        x1 = nl.load(x[half + i_p, col], mask=(col < seq))
        cos_tile = nl.load(cos[i_p, col], mask=(col < seq))
        sin_tile = nl.load(sin[i_p, col], mask=(col < seq))
        x0_cos = nl.multiply(x0, cos_tile, mask=(col < seq))
        x1_sin = nl.multiply(x1, sin_tile, mask=(col < seq))
        low = nl.subtract(x0_cos, x1_sin, mask=(col < seq))
        nl.store(out[i_p, col], value=low, mask=(col < seq))
        x0_sin = nl.multiply(x0, sin_tile, mask=(col < seq))
        x1_cos = nl.multiply(x1, cos_tile, mask=(col < seq))
        high = nl.add(x0_sin, x1_cos, mask=(col < seq))
        nl.store(out[half + i_p, col], value=high, mask=(col < seq))
    return out
