# High-level nki.language as a user writes it after the matmul tutorial: x is given transposed
# (K, M), so nl.matmul(..., transpose_x=True) takes it as it is; K tiled by 128 and accumulated
# with `+=` into an nl.zeros PSUM tile; nl.copy(dtype=) out of PSUM; N in 512-column blocks.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    out = nl.ndarray((M, N), dtype=w.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lhsT = nl.load(xT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                rhs = nl.load(w[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nl.matmul(lhsT, rhs, transpose_x=True)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512], value=res)
    return out
