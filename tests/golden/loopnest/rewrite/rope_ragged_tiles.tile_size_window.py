# Bundled style (legacy API, slices, nisa.tensor_tensor): the nest of rope_ragged_grid.py, the last
# of the 768-column windows cut by `min()` (every slice as wide as what is left of the row).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in nl.affine_range(4):
        x0 = nl.load(x[0:half, 2048*c:2048*c + 2048])
        x1 = nl.load(x[half:d_size, 2048*c:2048*c + 2048])
        cos_tile = nl.load(cos[:, 2048*c:2048*c + 2048])
        sin_tile = nl.load(sin[:, 2048*c:2048*c + 2048])
        x0_cos = nisa.tensor_tensor(x0, cos_tile, nl.multiply)
        x1_sin = nisa.tensor_tensor(x1, sin_tile, nl.multiply)
        low = nisa.tensor_tensor(x0_cos, x1_sin, nl.subtract)
        x0_sin = nisa.tensor_tensor(x0, sin_tile, nl.multiply)
        x1_cos = nisa.tensor_tensor(x1, cos_tile, nl.multiply)
        high = nisa.tensor_tensor(x0_sin, x1_cos, nl.add)
        nl.store(out[0:half, 2048*c:2048*c + 2048], low)
        nl.store(out[half:d_size, 2048*c:2048*c + 2048], high)
    return out
