# nl.mgrid indexing, a (1, F) partition broadcast with .broadcast_to, an HBM reshape view,
# in-place `+=` on an SBUF view, and Python control flow on a sequential_range variable.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, g):
    out = nl.ndarray((128, 64), dtype=np.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:64]
    t = nl.load(x[i_p, i_f])
    gt = nl.load(g.reshape((1, 64)))
    gb = gt.broadcast_to((128, 64))
    acc = nl.zeros((128, 64), dtype=np.float32, buffer=nl.sbuf)
    for s in nl.sequential_range(3):
        if s > 0:
            acc[0:128, 0:64] += nl.multiply(t, gb)
    nl.store(out, acc)
    return out
