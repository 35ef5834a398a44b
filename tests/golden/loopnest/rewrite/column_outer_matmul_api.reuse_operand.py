# Newer nki API (tiles declared then written by destination-first calls): C = A @ B with the
# column blocks of C outermost (a (256, 256), b (256, 1024)). Every (n, m, k) step loads an A block
# and a B block, transposes the A block on the Tensor Engine and copies it out of PSUM, and
# multiplies: each A block is loaded and transposed once per column block. reuse_operand must make
# m the outer loop, load A's row of blocks once per m and transpose each block once, here, in
# column_outer_matmul_tiles.py and in column_outer_matmul_grid.py, and keep the result.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    NB = 512
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        a_blk = nl.ndarray((128, K // 128, 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(K // 128):
            nisa.dma_copy(dst=a_blk[:, k, :], src=a[m * 128:(m + 1) * 128, k * 128:(k + 1) * 128])
        a_blk_t = nl.ndarray(shape=(128, K // 128, 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(K // 128):
            tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=tp, data=a_blk[:, k, :])
            nisa.tensor_copy(dst=a_blk_t[:, k, :], src=tp)
        for n in nl.affine_range(N // NB):
            acc = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                b_blk = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_blk, src=b[k * 128:(k + 1) * 128, n * NB:(n + 1) * NB])
                nisa.nc_matmul(dst=acc, stationary=a_blk_t[:, k, :], moving=b_blk)
            res = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=c[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], src=res)
    return c
