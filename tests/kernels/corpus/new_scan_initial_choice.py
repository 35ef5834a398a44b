# A first-order linear recurrence h[t] = a[t] * h[t-1] + x[t] along each row, in the newer `nki`
# API as assistant pipelines write it: the columns are cut into chunks scanned one instruction
# each, the first chunk starting from 0.0 and every later one from the carry tile the chunk before
# left (`0.0 if c == 0 else carry_tiles[r]`: a number or a tile chosen per iteration), the
# per-row-tile carries and coefficient tiles kept in Python lists filled by a helper
# (`a_tiles.append(load_rows(...))`).
import nki
import nki.language as nl
import nki.isa as nisa

CHUNK = 128


def load_rows(src, r0: int, c0: int, width: int, rows: int = 128):
    tile = nl.ndarray((rows, width), dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=src[r0:r0 + rows, c0:c0 + width])
    return tile


@nki.jit
def kernel(a, x):
    n_rows, n_cols = x.shape
    n_rt = n_rows // 128
    out = nl.ndarray((n_rows, n_cols), dtype=nl.float32, buffer=nl.shared_hbm)
    carry_tiles = []
    a_tiles = []
    for r in nl.static_range(n_rt):
        carry_tiles.append(nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf))
        a_tiles.append(load_rows(a, r * 128, 0, n_cols))
    for c in nl.sequential_range(n_cols // CHUNK):
        for r in nl.static_range(n_rt):
            x_t = load_rows(x, r * 128, c * CHUNK, CHUNK)
            h = nl.ndarray((128, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
            start = 0.0 if c == 0 else carry_tiles[r]
            nisa.tensor_tensor_scan(dst=h, data0=a_tiles[r][:, c * CHUNK:(c + 1) * CHUNK], data1=x_t,
                                    initial=start, op0=nl.multiply, op1=nl.add)
            nisa.tensor_copy(dst=carry_tiles[r], src=h[:, CHUNK - 1:CHUNK])
            nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK], src=h)
    return out
