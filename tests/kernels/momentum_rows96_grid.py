# Index-grid legacy style (nl.arange grids, nl.* calls): the nest of momentum_rows96_tiles.py,
# 96-row tiles of 256 columns addressed as `t * 96 + i_p`, `c * 256 + i_f`.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(theta, grad, mom):
    rows, cols = theta.shape
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(96)[:, None]
    i_f = nl.arange(256)[None, :]
    for t in nl.affine_range(rows // 96):
        for c in nl.affine_range(cols // 256):
            th = nl.load(theta[t * 96 + i_p, c * 256 + i_f])
            g = nl.load(grad[t * 96 + i_p, c * 256 + i_f])
            m0 = nl.load(mom[t * 96 + i_p, c * 256 + i_f])
            m1 = nl.add(nl.multiply(m0, 0.9), nl.multiply(g, 0.1))
            decay = nl.exp(nl.multiply(nl.multiply(g, g), -0.5))
            upd = nl.subtract(nl.multiply(th, 0.99999), nl.multiply(nl.multiply(m1, decay), 0.01))
            nl.store(out[t * 96 + i_p, c * 256 + i_f], value=upd)
    return out
