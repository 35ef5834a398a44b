# gelu(scale * x + b) with a per-row bias, in the newer `nki` API: columns in tiles of
# nl.tile_size.gemm_moving_fmax with a ragged last tile (700 = 512 + 188) cut by min(), rows in pmax
# tiles, the bias loaded once per row tile, activation(dst=, op=, data=, bias=, scale=) with every
# keyword the documentation names.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def bias_gelu(x, b):
    rows, cols = x.shape
    P = nl.tile_size.pmax
    F = nl.tile_size.gemm_moving_fmax
    assert rows % P == 0
    assert b.shape == (rows, 1)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    n_col_tiles = (cols + F - 1) // F
    for r in range(rows // P):
        bias = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=bias, src=b[r * P:(r + 1) * P, :])
        for c in range(n_col_tiles):
            width = min(F, cols - c * F)
            xt = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=xt[:, :width], src=x[r * P:(r + 1) * P, nl.ds(c * F, width)])
            yt = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=yt[:, :width], op=nl.gelu, data=xt[:, :width], bias=bias, scale=2.0)
            nisa.dma_copy(dst=out[r * P:(r + 1) * P, nl.ds(c * F, width)], src=yt[:, :width])
    return out
