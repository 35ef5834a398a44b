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
    # HBM views with twice the rows and half the columns: row r of the view is half r % 2 of row r // 2
    x_fold = x.reshape((2 * x.shape[0], x.shape[1] // 2))
    cos_fold = cos.reshape((2 * cos.shape[0], cos.shape[1] // 2))
    sin_fold = sin.reshape((2 * sin.shape[0], sin.shape[1] // 2))
    out_fold = out.reshape((2 * out.shape[0], out.shape[1] // 2))
    for c in nl.affine_range(seq // 2 // block):
        x0 = nl.load(x_fold[0:2 * half, c * block:(c + 1) * block])
        x1 = nl.load(x_fold[2 * half:2 * d_size, c * block:(c + 1) * block])
        cos_tile = nl.load(cos_fold[:, c * block:(c + 1) * block])
        sin_tile = nl.load(sin_fold[:, c * block:(c + 1) * block])
        low = nisa.tensor_tensor(nisa.tensor_tensor(x0, cos_tile, nl.multiply), nisa.tensor_tensor(x1, sin_tile, nl.multiply), nl.subtract)
        high = nl.add(nl.multiply(x0, sin_tile), nl.multiply(x1, cos_tile))
        nl.store(out_fold[0:2 * half, c * block:(c + 1) * block], low)
        nl.store(out_fold[2 * half:2 * d_size, c * block:(c + 1) * block], value=high)
    return out
