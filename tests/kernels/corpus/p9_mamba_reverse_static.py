import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def reverse_scan(decay, x):
    """A suffix scan h[t] = decay[t] * h[t+1] + x[t] over 128-column chunks walked backwards by
    nl.static_range(n - 1, -1, -1): each chunk's own scan runs on a reversed view through
    nisa.tensor_tensor_scan and the carry comes from the first column of the chunk after it
    (a [:, 0:1] slice kept 2-D), the chunk's columns reversed with a negative-step index grid."""
    C, L = x.shape
    W = 128
    n = L // W
    out = nl.ndarray((C, L), dtype=nl.float32, buffer=nl.shared_hbm)
    carry = nl.zeros((C, 1), dtype=nl.float32, buffer=nl.sbuf)
    ip = nl.arange(C)[:, None]
    jr = nl.arange(W)[None, :]
    for c in nl.static_range(n - 1, -1, -1):
        # columns of the chunk, last first
        d = nl.load(decay[ip, c * W + (W - 1) - jr])
        v = nl.load(x[ip, c * W + (W - 1) - jr])
        h = nisa.tensor_tensor_scan(d, v, initial=carry, op0=np.multiply, op1=np.add)
        carry[...] = h[:, W - 1:W]
        nl.store(out[ip, c * W + (W - 1) - jr], value=h)
    return out
