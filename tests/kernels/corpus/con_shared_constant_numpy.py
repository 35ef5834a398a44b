import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

N = 64
# Built with numpy when the module loads: a per-column ramp.
RAMP = (np.arange(N, dtype=np.float32) / N).reshape(1, N)


@nki.jit
def kernel(x):
    # Constants made with numpy at trace time and placed in HBM by nl.shared_constant: a module
    # constant, one built inline, and one built in two steps from a host array.
    M, _ = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    ramp = nl.load(nl.shared_constant(RAMP))
    steps = nl.load(nl.shared_constant(np.arange(N, dtype=np.float32).reshape(1, N) * 2.0 - 1.0))
    cols = np.linspace(0.0, 1.0, N, dtype=np.float32)
    flip = nl.load(nl.shared_constant(cols[::-1].reshape(1, N)))
    for r in nl.affine_range(M // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        y = nl.add(nl.multiply(t, ramp.broadcast_to((128, N))), steps.broadcast_to((128, N)))
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.subtract(y, flip.broadcast_to((128, N))))
    return out
