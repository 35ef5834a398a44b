# Newer nki API (destination-first), rows walked in blocks of 64 partitions as a GPU port sizes its
# thread blocks: an RMS norm scaled per column, out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2)) * g.
# x (256, 512), g (1, 512). tile_size coarsens the block loop onto 128 partitions (rows=1), as for
# the legacy-API half_row_blocks.py: the buffers declared in the loop and the zero bias set before
# it grow with the rows, the row statistics stay one column per partition, and the partition
# broadcast of g grows its shape.
import nki
import nki.language as nl
import nki.isa as nisa

BLOCK = 64


@nki.jit
def kernel(x, g):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    g_row = nl.ndarray((1, cols), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g)
    zero_bias = nl.ndarray((BLOCK, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zero_bias, value=0.0)
    for blk in nl.affine_range(rows // BLOCK):
        row0 = blk * BLOCK
        t = nl.ndarray((BLOCK, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[nl.ds(row0, BLOCK), :])
        sq = nl.ndarray((BLOCK, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=sq, op=nl.square, data=t, bias=zero_bias, scale=1.0)
        ss = nl.ndarray((BLOCK, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=ss, op=nl.add, data=sq, axis=1, keepdims=True)
        inv = nl.ndarray((BLOCK, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=inv, op=nl.rsqrt, data=ss, bias=zero_bias, scale=1.0 / cols)
        y = nl.ndarray((BLOCK, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=t, op0=nl.multiply, operand0=inv)
        res = nl.ndarray((BLOCK, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=res, data1=y, data2=nl.broadcast_to(g_row, shape=(BLOCK, cols)), op=nl.multiply)
        nisa.dma_copy(dst=out[nl.ds(row0, BLOCK), :], src=res)
    return out
