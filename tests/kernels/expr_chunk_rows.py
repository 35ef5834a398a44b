# Newer `nki` API: exp of a row block in column chunks whose width is a module constant written as an
# expression of the hardware's tile limits, as authors who learned from the newer documentation write
# it (x: (128, 2560)). The chunk count is ceil-divided and the last chunk clamped: any width is legal,
# and free_size offers the constant quartered, halved and doubled, writing the new width as a literal
# in place of the expression (1024 -> 256 / 512 / 2048). `P` (the partition count) is only read.
import nki
import nki.language as nl
import nki.isa as nisa

P = nl.tile_size.pmax
CHUNK = 2 * nl.tile_size.gemm_moving_fmax


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    n_chunks = (cols + CHUNK - 1) // CHUNK
    for c in nl.affine_range(n_chunks):
        c0 = c * CHUNK
        width = min(CHUNK, cols - c0)
        t = nl.ndarray((P, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:P, c0:c0 + width])
        e = nl.ndarray((P, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=t)
        nisa.dma_copy(dst=out[0:P, c0:c0 + width], src=e)
    return out
