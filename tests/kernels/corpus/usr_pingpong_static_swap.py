# A recurrence over column chunks with two SBUF buffers swapped by tuple assignment
# (`prev, cur = cur, prev`) inside an unrolled nl.static_range loop: every iteration writes the
# other buffer, so the Python names alternate between the two tensors.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

DECAY = 0.75


@nki.jit
def kernel(x):
    P, N = x.shape
    C = 128
    out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    prev = nl.zeros((P, C), dtype=nl.float32, buffer=nl.sbuf)
    cur = nl.ndarray((P, C), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.static_range(N // C):
        xc = nl.load(x[:, c * C:(c + 1) * C])
        cur[...] = nl.add(nl.multiply(prev, DECAY), xc)
        nl.store(out[:, c * C:(c + 1) * C], value=cur)
        prev, cur = cur, prev
    return out
