# Two scalar steps with named constants: out = exp(x * scale + shift), x (256, 512).
# fold_scalar_ops merges the multiply and the add into one tensor_scalar whose operands print as
# the author's names (`operand0=scale`), the names meaning the same values where the fold lands.
import math

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    R, C = x.shape
    scale = 1.0 / math.sqrt(64)
    shift = 0.5
    out = nl.ndarray((R, C), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        scaled = nl.multiply(t, scale)
        shifted = nl.add(scaled, shift)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.exp(shifted))
    return out
