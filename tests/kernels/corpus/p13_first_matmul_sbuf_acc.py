# A first matmul that accumulates in SBUF: the accumulator is an nl.zeros tile in the default
# buffer and each K step adds the PSUM result of nl.matmul(transpose_x=True) into it with `+=`
# (a Vector Engine add per step instead of accumulation in PSUM); both operand tiles are loaded in
# the innermost loop.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(aT, b):
    K, M = aT.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=b.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32)
            for k in nl.affine_range(K // 128):
                a_t = nl.load(aT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                b_t = nl.load(b[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nl.matmul(a_t, b_t, transpose_x=True)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=acc)
    return out
