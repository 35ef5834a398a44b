# Newer nki API, nested loops: the nest of flat_transpose_matmul.py with the row and column loops
# written apart and the operand blocks copied in by nisa.dma_copy into declared tiles. a (256, 256),
# b (256, 1024). hoist_transpose (loads=1): the block's DMA, transpose and PSUM copy leave `for q`.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    CB = 512
    c = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(M // 128):
        a_blk_t = nl.ndarray(shape=(128, K // 128, 128), dtype=nl.float32, buffer=nl.sbuf)
        for kk in nl.affine_range(K // 128):
            a_blk = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_blk[...], src=a[r * 128:(r + 1) * 128, kk * 128:(kk + 1) * 128])
            a_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=a_ps, data=a_blk)
            nisa.tensor_copy(dst=a_blk_t[:, kk, :], src=a_ps)
        for q in nl.affine_range(N // CB):
            acc = nl.ndarray((128, CB), dtype=nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(K // 128):
                b_blk = nl.ndarray((128, CB), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_blk, src=b[kk * 128:(kk + 1) * 128, q * CB:(q + 1) * CB])
                nisa.nc_matmul(dst=acc, stationary=a_blk_t[:, kk, :], moving=b_blk)
            res = nl.ndarray((128, CB), dtype=a.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=c[r * 128:(r + 1) * 128, q * CB:(q + 1) * CB], src=res)
    return c
