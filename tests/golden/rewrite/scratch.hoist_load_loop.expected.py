# inputs: 4x128x256 2x128x256
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    # x: (4, 128, 256) row tiles, processed in 2 blocks of 2; w: (2, 128, 256).
    # Stage 1: y = x * w[0] per row tile, w loaded per block, into an HBM scratch tensor.
    # Stage 2: exp(y) + w[1], reading the scratch back tile by tile.
    out = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    scratch = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.hbm)
    w_tiles = nl.ndarray((2, nl.par_dim(128), 256), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(2):
        w_tiles[k] = nl.load(w[k])
    for i in nl.affine_range(2):
        for j in nl.affine_range(2):
            t = nl.load(x[i * 2 + j])
            y = nl.multiply(t, w_tiles[0])
            nl.store(scratch[i * 2 + j, :, :], value=y)
    bias = nl.load(w[1])
    for i in nl.affine_range(2):
        for r in nl.affine_range(2):
            m = i * 2 + r
            t = nl.load(scratch[m, :, :])
            z = nl.add(nl.exp(t), bias)
            nl.store(out[m], value=z)
    return out
