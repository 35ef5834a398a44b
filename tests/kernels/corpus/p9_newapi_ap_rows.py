import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def scale_rows(x, s):
    """y = x * s[row] in the newer API with raw access patterns: the HBM input read through
    .ap([[cols, 128], [1, cols]], offset=...) per row block, the per-row scale column read
    with a stride-1 .ap of shape (128, 1), nl.ds for the store, nl.tile_size.pmax for the
    block, and nisa.tensor_scalar destination-first with the (P, 1) tile as operand."""
    R, Cc = x.shape
    P = nl.tile_size.pmax
    y = nl.ndarray((R, Cc), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(R // P):
        t = nl.ndarray((P, Cc), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap(pattern=[[Cc, P], [1, Cc]], offset=b * P * Cc))
        sc = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=sc, src=s.ap(pattern=[[1, P], [1, 1]], offset=b * P))
        r = nl.ndarray((P, Cc), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=r, data=t, op0=nl.multiply, operand0=sc)
        nisa.dma_copy(dst=y[nl.ds(b * P, P), :], src=r)
    return y
