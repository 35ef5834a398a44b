import nki
import nki.language as nl
import nki.isa as nisa


# Rows that load into a list of two buffers used in turn (`x_sb[i % 2]`) and share a bias load:
# jam_rows may run two rows at once (each has its own buffer) but not four (rows i and i + 2 would
# share one). tests/unit/loopnest/jam_rows_test.cpp.
@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    P = nl.tile_size.pmax
    n = rows // P
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    x_sb = [nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf) for _ in range(2)]
    for i in nl.affine_range(n):
        b_sb = nl.ndarray((P, 1), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b_sb, src=bias)
        xt = x_sb[i % 2]
        nisa.dma_copy(dst=xt, src=x[i * P:(i + 1) * P, :])
        y = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=y, op=nl.exp, data=xt, bias=b_sb, scale=1.0)
        nisa.dma_copy(dst=out[i * P:(i + 1) * P, :], src=y)
    return out
