# Lists of tiles built in an unrolled loop, as assistant-written kernels build them: one appends
# what a helper returns (`w_tiles.append(load_rows(w, ...))`), one appends a fresh allocation
# (`outs.append(nl.ndarray(...))`) that a later loop writes. Both lift as one tensor with a block
# dim over the loop; the helper's work stays in the loop that calls it.
import nki
import nki.language as nl
import nki.isa as nisa


def load_rows(src, r0: int, rows: int = 128):
    tile = nl.ndarray((rows, src.shape[1]), dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=src[r0:r0 + rows, :])
    return tile


@nki.jit
def kernel(x, w):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n_rows = x.shape[0] // 128
    w_tiles = []
    outs = []
    for r in nl.static_range(n_rows):
        w_tiles.append(load_rows(w, r * 128))
        outs.append(nl.ndarray((128, x.shape[1]), dtype=nl.float32, buffer=nl.sbuf))
    for r in nl.affine_range(n_rows):
        t = load_rows(x, r * 128)
        nisa.tensor_tensor(dst=outs[r], data1=t, data2=w_tiles[r], op=nl.multiply)
    for r in nl.static_range(n_rows):
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=outs[r])
    return out
