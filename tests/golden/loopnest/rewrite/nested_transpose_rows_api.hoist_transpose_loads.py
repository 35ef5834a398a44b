# nested_transpose_rows.py in the newer nki API: the block's DMA into a declared tile, then
# `nl.copy(nl.transpose(blk), dtype=..)` inside the column loop. a (256, 256), b (256, 1024).
# hoist_transpose (loads=1) takes the DMA and the transpose out of `for col`.
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
        blk_t2 = nl.ndarray(shape=(128, K // 128, 128), dtype=nl.float32, buffer=nl.sbuf)
        for kb in nl.affine_range(K // 128):
            blk = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=blk[...], src=a[row * 128:(row + 1) * 128, kb * 128:(kb + 1) * 128])
            blk_ps = nl.transpose(blk)
            blk_t2[:, kb, :] = nl.copy(blk_ps, dtype=nl.float32)
        for col in nl.affine_range(N // WIDTH):
            acc = nl.ndarray((128, WIDTH), dtype=nl.float32, buffer=nl.psum)
            for kb in nl.affine_range(K // 128):
                rhs = nl.ndarray((128, WIDTH), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rhs, src=b[kb * 128:(kb + 1) * 128, col * WIDTH:(col + 1) * WIDTH])
                nisa.nc_matmul(dst=acc, stationary=blk_t2[:, kb, :], moving=rhs)
            res = nl.ndarray((128, WIDTH), dtype=a.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=c[row * 128:(row + 1) * 128, col * WIDTH:(col + 1) * WIDTH], src=res)
    return c
