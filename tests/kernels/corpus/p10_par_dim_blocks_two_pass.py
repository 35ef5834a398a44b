import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki.language import par_dim


@nki.jit
def column_center(x):
    # Subtract each column's mean. Pass 1 keeps every row block resident in one block-dim
    # SBUF tensor (nb, par_dim(128), D) and accumulates the column sums with a ones-row matmul;
    # pass 2 reuses the resident blocks, so x is read from HBM once.
    R, D = x.shape
    nb = R // 128
    blocks = nl.ndarray((nb, par_dim(128), D), dtype=x.dtype, buffer=nl.sbuf)
    ones = nl.ones((128, 1), dtype=nl.float32)
    colsum = nl.zeros((1, D), dtype=nl.float32, buffer=nl.psum)
    for b in nl.affine_range(nb):
        blocks[b] = nl.load(x[b * 128:(b + 1) * 128, :])
        colsum += nl.matmul(ones, blocks[b], transpose_x=True)
    mean_row = nl.multiply(colsum, 1.0 / R)
    mean = nl.broadcast_to(mean_row, shape=(128, D))
    out = nl.ndarray((R, D), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(nb):
        nl.store(out[b * 128:(b + 1) * 128, :], value=nl.subtract(blocks[b], mean))
    return out
