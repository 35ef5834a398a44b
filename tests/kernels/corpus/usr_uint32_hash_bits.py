# An integer kernel: a xorshift-style hash of uint32 keys with bitwise instructions only
# (nl.bitwise_xor, nl.left_shift, nl.right_shift as a logical shift, nl.bitwise_and with a mask)
# and the Python operators ^, <<, >>, & on uint32 tiles. Shift counts are typed numpy scalars or
# the result dtype is given: a bare Python int is int32, and uint32 with int32 promotes to
# float32 (3.8), which a bitvec operation refuses; the two-op nisa.tensor_scalar keeps the bits
# between its ops.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def hash_buckets(keys, n_buckets_log2=6):
    M, N = keys.shape
    h_out = nl.ndarray((M, N), dtype=nl.uint32, buffer=nl.shared_hbm)
    b_out = nl.ndarray((M, N), dtype=nl.uint32, buffer=nl.shared_hbm)
    for t in nl.affine_range(M // 128):
        h = nl.load(keys[t * 128:(t + 1) * 128, :])
        h = nl.bitwise_xor(h, nl.left_shift(h, 13, dtype=nl.uint32))
        h = h ^ (h >> np.uint32(17))
        h = nl.bitwise_xor(h, h << np.uint32(5))
        mask = np.uint32((1 << n_buckets_log2) - 1)
        bucket = nisa.tensor_scalar(h, np.right_shift, np.uint32(3), op1=np.bitwise_and, operand1=mask)
        nl.store(h_out[t * 128:(t + 1) * 128, :], value=h)
        nl.store(b_out[t * 128:(t + 1) * 128, :], value=bucket)
    return h_out, b_out
