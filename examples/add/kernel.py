# The kernel for examples/add/reference.py: 128-row tiles, loaded, added on the Vector Engine,
# stored. Try: accelopt eval --reference examples/add/reference.py --kernel examples/add/kernel.py
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        x_tile = nl.load(x[r * 128:(r + 1) * 128, :])
        y_tile = nl.load(y[r * 128:(r + 1) * 128, :])
        total = nisa.tensor_tensor(x_tile, y_tile, nl.add)
        nl.store(out[r * 128:(r + 1) * 128, :], value=total)
    return out
