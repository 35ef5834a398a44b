# Legacy API: nested_transpose_rows.py's nest with the column loop under `if K % 128 == 0:` inside
# the row loop (decided true while tracing: it compares shapes). a (256, 256), b (256, 1024). The
# guard always holds, so the moves see the column loop as the row loop's only statement: the same
# sites as nested_transpose_rows.py (interchange, the hoists of either operand, reuse_operand), the
# guard printed where it was written (tests/unit/loopnest/decided_guard_test.cpp).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    WIDTH = 512
    c = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for row in nl.affine_range(M // 128):
        if K % 128 == 0:
            for col in nl.affine_range(N // WIDTH):
                acc = nl.zeros((128, WIDTH), dtype=nl.float32, buffer=nl.psum)
                for kb in nl.affine_range(K // 128):
                    blk = nl.load(a[row * 128:(row + 1) * 128, kb * 128:(kb + 1) * 128])
                    blk_t = nl.copy(nl.transpose(blk), dtype=nl.float32)
                    rhs = nl.load(b[kb * 128:(kb + 1) * 128, col * WIDTH:(col + 1) * WIDTH])
                    acc += nl.matmul(blk_t, rhs, transpose_x=True)
                out_tile = nl.copy(acc, dtype=c.dtype)
                nl.store(c[row * 128:(row + 1) * 128, col * WIDTH:(col + 1) * WIDTH], value=out_tile)
    return c
