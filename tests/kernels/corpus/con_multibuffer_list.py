import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, bias):
    # Multi-buffered tiles as a performance engineer writes them: lists of buffers made by a
    # comprehension, one indexed by `i % 2` (double buffering), one by the loop index.
    rows, cols = x.shape
    P = nl.tile_size.pmax
    n = rows // P
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    x_sb = [nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf) for _ in range(2)]
    y_sb = [nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf) for _ in range(n)]
    b_sb = nl.ndarray((P, 1), dtype=bias.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b_sb, src=bias)
    for i in nl.affine_range(n):
        xt = x_sb[i % 2]
        nisa.dma_copy(dst=xt, src=x[i * P:(i + 1) * P, :])
        nisa.activation(dst=y_sb[i], op=nl.exp, data=xt, bias=b_sb, scale=1.0)
        nisa.tensor_scalar(dst=y_sb[i], data=y_sb[i], op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=out[i * P:(i + 1) * P, :], src=y_sb[i])
    return out
