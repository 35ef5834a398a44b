# Newer `nki` API: exp of a row block in column chunks whose width is a module constant the kernel
# reads directly (x: (128, 2560)). The chunk count is ceil-divided and the last chunk clamped with
# `min(CHUNK, cols - c0)`: the author wrote the ragged tail, so any width is legal and free_size
# offers the constant quartered, halved and doubled (1024 -> 256 / 512 / 2048; at 512 the tail
# disappears). `LANES` is only read (a partition count): no site.
import nki
import nki.language as nl
import nki.isa as nisa

CHUNK = 1024
LANES = 128


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    n_chunks = (cols + CHUNK - 1) // CHUNK
    for c in nl.affine_range(n_chunks):
        c0 = c * CHUNK
        width = min(CHUNK, cols - c0)
        t = nl.ndarray((LANES, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:LANES, c0:c0 + width])
        e = nl.ndarray((LANES, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=t)
        nisa.dma_copy(dst=out[0:LANES, c0:c0 + width], src=e)
    return out
