# adamw's update at a small size, in the tiles style (one load per input and row tile, halves of
# the row in an inner loop): a VectorE -> ScalarE (sqrt) -> VectorE chain per half beside
# independent VectorE work of the next half. The chain's waits on ScalarE are where placing
# instructions in program order left VectorE idle (tests/unit/fidelity/monotonic_cost_test.cpp).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(theta, grad, m, v):
    rows, cols = theta.shape
    out = nl.ndarray((rows, cols), dtype=theta.dtype, buffer=nl.shared_hbm)
    half = cols // 2
    for r in nl.affine_range(rows // 128):
        t = nl.load(theta[r * 128:(r + 1) * 128, :])
        g = nl.load(grad[r * 128:(r + 1) * 128, :])
        mt = nl.load(m[r * 128:(r + 1) * 128, :])
        vt = nl.load(v[r * 128:(r + 1) * 128, :])
        res = nl.ndarray((nl.par_dim(128), cols), dtype=theta.dtype, buffer=nl.sbuf)
        for h in nl.affine_range(2):
            cs = nl.ds(h * half, half)
            m1 = nl.add(nl.multiply(mt[:, cs], 0.9), nl.multiply(g[:, cs], 0.1))
            v1 = nl.add(nl.multiply(vt[:, cs], 0.999), nl.multiply(nl.multiply(g[:, cs], g[:, cs]), 0.001))
            root = nisa.activation(op=np.sqrt, data=v1, scale=1000.0)
            inv = nisa.reciprocal(nl.add(root, 1e-8))
            step = nl.multiply(nl.multiply(m1, inv), 0.01)
            res[:, cs] = nl.subtract(nl.multiply(t[:, cs], 0.99999), step)
        nl.store(out[r * 128:(r + 1) * 128, :], value=res)
    return out
