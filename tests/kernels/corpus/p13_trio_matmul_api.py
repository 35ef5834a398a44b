# p13_trio_matmul_isa's program with the high-level API: nl.matmul(..., transpose_x=True).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(aT, b):
    K, M = aT.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=b.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lhsT = nl.load(aT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                rhs = nl.load(b[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nl.matmul(lhsT, rhs, transpose_x=True)
            res = nl.copy(acc, dtype=b.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=res)
    return out
