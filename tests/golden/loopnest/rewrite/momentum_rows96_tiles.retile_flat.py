# Legacy `nl` style with reshaped HBM views and slices: a momentum update (m1 = 0.9 m + 0.1 g,
# out = theta * (1 - 1e-5) - 0.01 * m1 * exp(-g^2 / 2)) streamed in 96-row tiles because 96 divides
# the row count, as an outside author wrote AdamW. Every instruction and DMA works on 96 of the 128
# partitions; retile_flat walks flat (n, 128, W2) views instead. momentum_rows96_grid.py and
# momentum_rows96_api.py are the same nest; test size (192, 512).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(theta, grad, mom):
    rows, cols = theta.shape
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    thv = theta.reshape((3, 128, 256))
    gv = grad.reshape((3, 128, 256))
    mv = mom.reshape((3, 128, 256))
    ov = out.reshape((3, 128, 256))
    for t in nl.affine_range(3):
        th = nl.load(thv[t, :, :])
        g = nl.load(gv[t, :, :])
        m0 = nl.load(mv[t, :, :])
        m1 = 0.9 * m0 + 0.1 * g
        decay = nl.exp(g * g * -0.5)
        upd = th * (1.0 - 1e-5) - 0.01 * m1 * decay
        nl.store(ov[t, :, :], upd)
    return out
