# inputs: 16x2048 8x2048 8x2048
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    # RoPE on D = 16 rows: [x0*cos - x1*sin ; x0*sin + x1*cos] with x0, x1 the two 8-row halves,
    # in 512-column blocks on 8 partitions.
    d_size, seq = x.shape
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    block = 512
    for c in nl.affine_range(seq // block):
        x0 = nl.load(x[0:half, c * block:(c + 1) * block])
        x1 = nl.load(x[half:d_size, c * block:(c + 1) * block])
        cos_tile = nl.load(cos[:, c * block:(c + 1) * block])
        sin_tile = nl.load(sin[:, c * block:(c + 1) * block])
        low = nisa.tensor_tensor(nisa.tensor_tensor(x0, cos_tile, nl.multiply), nisa.tensor_tensor(x1, sin_tile, nl.multiply), nl.subtract)
        high = nl.add(nl.multiply(x0, sin_tile), nl.multiply(x1, cos_tile))
        nl.store(out[0:half, c * block:(c + 1) * block], low)
        nl.store(out[half:d_size, c * block:(c + 1) * block], value=high)
    return out
