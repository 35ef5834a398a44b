import nki
import nki.language as nl
import nki.isa as nisa


# The newer API's hand-written pipeline (session 30): two buffers in a list, the next row tile's
# DMA issued into `x_sb[(i + 1) % 2]` before this tile's activation reads `x_sb[i % 2]`; the first
# tile loaded before the loop. src/loopnest/unpipeline.cpp.
@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    P = nl.tile_size.pmax
    n = rows // P
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i_blk in nl.affine_range(n // 2):
        x_sb_0 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        x_sb_1 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_sb_0[...], src=x[256*i_blk:256*i_blk + 128, :])
        nisa.dma_copy(dst=x_sb_1[...], src=x[256*i_blk + 128:256*i_blk + 256, :])
        b_sb = nl.ndarray((P, cols), dtype=bias.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=b_sb, src=bias)
        e_0 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        e_1 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=e_0[...], op=nl.exp, data=x_sb_0, scale=1.0)
        nisa.activation(dst=e_1[...], op=nl.exp, data=x_sb_1, scale=1.0)
        y_0 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        y_1 = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=y_0[...], data=e_0, op0=nl.multiply, operand0=0.5, op1=nl.add, operand1=b_sb)
        nisa.scalar_tensor_tensor(dst=y_1[...], data=e_1, op0=nl.multiply, operand0=0.5, op1=nl.add, operand1=b_sb)
        nisa.dma_copy(dst=out[256*i_blk:256*i_blk + 128, :], src=y_0)
        nisa.dma_copy(dst=out[256*i_blk + 128:256*i_blk + 256, :], src=y_1)
    return out
