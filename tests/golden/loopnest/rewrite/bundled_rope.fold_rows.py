import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    # x: (D, S), cos/sin: (D/2, S). Rows [x0*cos - x1*sin ; x0*sin + x1*cos] with x0, x1 the two
    # halves of x, in 1024-column blocks on D/2 partitions.
    d_size, seq = x.shape
    half = d_size // 2
    assert tuple(cos.shape) == (half, seq)
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    x_fold = x.reshape((256, 131072))
    cos_fold = cos.reshape((128, 131072))
    sin_fold = sin.reshape((128, 131072))
    out_fold = out.reshape((256, 131072))
    for c in nl.affine_range(128):
        x0 = nl.load(x_fold[0:128, 1024*c:1024*c + 1024])
        x1 = nl.load(x_fold[128:256, 1024*c:1024*c + 1024])
        cos_tile = nl.load(cos_fold[:, 1024*c:1024*c + 1024])
        sin_tile = nl.load(sin_fold[:, 1024*c:1024*c + 1024])
        x0_cos = nisa.tensor_tensor(x0, cos_tile, nl.multiply)
        x1_sin = nisa.tensor_tensor(x1, sin_tile, nl.multiply)
        low = nisa.tensor_tensor(x0_cos, x1_sin, nl.subtract)
        x0_sin = nisa.tensor_tensor(x0, sin_tile, nl.multiply)
        x1_cos = nisa.tensor_tensor(x1, cos_tile, nl.multiply)
        high = nisa.tensor_tensor(x0_sin, x1_cos, nl.add)
        nl.store(out_fold[0:128, 1024*c:1024*c + 1024], low)
        nl.store(out_fold[128:256, 1024*c:1024*c + 1024], high)
    return out
