# A linear recurrence h_t = a_t * h_(t-1) + b_t along the columns, scanned chunk by chunk: each row
# tile's carry between chunks is an item of a Python list of numbers (`state = [0.0] * n_rows`),
# 0.0 before the first chunk and, after it, the last column the chunk before scanned, bound to the
# item (`state[r] = nl.copy(...)`). Legacy API, value-returning calls.
from neuronxcc import nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

CHUNK = 256


@nki.jit
def kernel(decay, drive):
    R, C = decay.shape
    n_rows = R // 128
    out = nl.ndarray((R, C), dtype=decay.dtype, buffer=nl.shared_hbm)
    state = [0.0] * n_rows
    for c in nl.sequential_range(C // CHUNK):
        for r in nl.affine_range(n_rows):
            a = nl.load(decay[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK])
            b = nl.load(drive[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK])
            h = nisa.tensor_tensor_scan(a, b, initial=state[r], op0=nl.multiply, op1=nl.add)
            state[r] = nl.copy(h[:, CHUNK - 1:CHUNK])
            nl.store(out[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK], value=h)
    return out
