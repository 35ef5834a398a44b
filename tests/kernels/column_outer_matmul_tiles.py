# Bundled style (nl.* calls, slices, sizes from the argument shapes): C = A @ B with the column
# blocks of C outermost (a (256, 256), b (256, 1024)). Every (n, m, k) step loads an A block and a
# B block and multiplies them with nl.matmul, which transposes the A block on the Tensor Engine at
# every call: each A block is loaded and transposed once per column block. reuse_operand must make
# m the outer loop, load A's row of blocks once per m and transpose each block once, here, in
# column_outer_matmul_grid.py and in column_outer_matmul_api.py, and keep the result.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    NB = 512
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for n in nl.affine_range(N // NB):
        for m in nl.affine_range(M // 128):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                a_blk = nl.load(a[m * 128:(m + 1) * 128, k * 128:(k + 1) * 128])
                b_blk = nl.load(b[k * 128:(k + 1) * 128, n * NB:(n + 1) * NB])
                acc += nl.matmul(a_blk, b_blk)
            nl.store(c[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], value=acc)
    return c
