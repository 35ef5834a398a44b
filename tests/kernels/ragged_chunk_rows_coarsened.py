# ragged_chunk_rows.py after a move coarsened its chunk loop by 2, as the built-in agent prints it:
# the trip still reads the module constant (`n_chunks // 2`) while the tiles became literal
# 2048-wide windows. Changing CHUNK now no longer changes every use: doubling it halves the trip and
# leaves the row's second half unwritten, quartering it doubles the trip past the row's end. No
# free_size site on CHUNK (an outside author's adamw, session 32: evaluated as inf).
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
    for c in nl.affine_range(n_chunks // 2):
        c0 = c * 2048
        width = min(2048, cols - c0)
        t = nl.ndarray((LANES, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:LANES, c0:c0 + width])
        e = nl.ndarray((LANES, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=t)
        nisa.dma_copy(dst=out[0:LANES, c0:c0 + width], src=e)
    return out
