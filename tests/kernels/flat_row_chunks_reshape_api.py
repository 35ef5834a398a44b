# flat_row_chunks_api.py's kernel with the flat view spelled as a reshape of the contiguous
# (128, T, N) tensor and the chunks as slices of it: the same elements, so the same form.
import nki
import nki.isa as nisa
import nki.language as nl

CHUNK = 512


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    parts, rows, cols = x.shape
    n_chunks = rows * cols // CHUNK
    for c in range(n_chunks):
        t = nl.ndarray((parts, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.reshape((parts, rows * cols))[:, c * CHUNK:(c + 1) * CHUNK])
        y = nl.ndarray((parts, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=y, op=nl.silu, data=t)
        nisa.dma_copy(dst=out.reshape((parts, rows * cols))[:, c * CHUNK:(c + 1) * CHUNK], src=y)
    return out
