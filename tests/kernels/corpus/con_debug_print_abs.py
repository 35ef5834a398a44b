# A debugging print left in the kernel (nl.device_print: effective in simulation only, no device
# instruction, nki-language.md 7.7) and Python's abs() of a tile (nl.abs, 7.9).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        a = abs(t)
        nl.device_print("abs tile", a)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(a, 1.0))
    return out
