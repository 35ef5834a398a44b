# ragged_chunk_rows.py with its chunk tile still sized by the module constant while the window it
# loads was printed literally (1024 columns), as a kernel a move rewrote can be: every output column
# is still written once, but changing CHUNK would load a 1024-wide window into a tile of another
# width. No free_size site on CHUNK (an outside author's mamba and matmul, session 32: shape errors).
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
        t = nl.ndarray((LANES, CHUNK), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:LANES, c * 1024:c * 1024 + 1024])
        e = nl.ndarray((LANES, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=t)
        nisa.dma_copy(dst=out[0:LANES, c0:c0 + CHUNK], src=e)
    return out
