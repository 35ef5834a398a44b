# Newer nki API: nested_transpose_rows_api.py's nest with the column loop under `if K % 128 == 0:`
# inside the row loop (decided true while tracing: it compares shapes). a (256, 256), b (256, 1024).
# The guard always holds, so the moves see the column loop as the row loop's only statement: the
# same sites as nested_transpose_rows_api.py (interchange, the hoists of either operand,
# reuse_operand), the guard printed where it was written
# (tests/unit/loopnest/decided_guard_test.cpp).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    WIDTH = 512
    c = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for row in nl.affine_range(M // 128):
        if K % 128 == 0:
            for col in nl.affine_range(N // WIDTH):
                acc = nl.ndarray((128, WIDTH), dtype=nl.float32, buffer=nl.psum)
                for kb in nl.affine_range(K // 128):
                    blk = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=blk, src=a[row * 128:(row + 1) * 128, kb * 128:(kb + 1) * 128])
                    blk_t = nl.copy(nl.transpose(blk), dtype=nl.float32)
                    rhs = nl.ndarray((128, WIDTH), dtype=b.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=rhs, src=b[kb * 128:(kb + 1) * 128, col * WIDTH:(col + 1) * WIDTH])
                    nisa.nc_matmul(dst=acc, stationary=blk_t, moving=rhs)
                res = nl.ndarray((128, WIDTH), dtype=a.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=res, src=acc)
                nisa.dma_copy(dst=c[row * 128:(row + 1) * 128, col * WIDTH:(col + 1) * WIDTH], src=res)
    return c
