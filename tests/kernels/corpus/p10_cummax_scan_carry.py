import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def running_max(x):
    # Cumulative maximum along each row, in column chunks: tensor_tensor_scan with
    # op0=maximum against the carry and op1=add of zeros, the last column of each chunk
    # carried into the next chunk's initial= through a nl.sequential_range.
    R, C = x.shape
    CH = 256
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    zeros = nl.zeros((128, CH), dtype=nl.float32)
    for r in nl.affine_range(R // 128):
        carry = nl.full((128, 1), -3.0e38, dtype=nl.float32)
        for c in nl.sequential_range(C // CH):
            t = nl.load(x[r * 128:(r + 1) * 128, c * CH:(c + 1) * CH])
            s = nisa.tensor_tensor_scan(t, zeros, initial=carry, op0=np.maximum, op1=np.add)
            nl.store(out[r * 128:(r + 1) * 128, c * CH:(c + 1) * CH], value=s)
            carry = nl.copy(s[:, CH - 1:CH])
    return out
