# Two 64-row halves of x (128, L) combined with a (64, L) gain g, each operand gathered onto all
# 128 partitions by one DMA: partition s * 64 + r holds row r, columns s * L/2 + [c, c + F). The
# HBM side is a 3-D access pattern (`.ap`, [[L/2, 2], [L, 64], [1, F]]) and the SBUF side a
# (128, F) tile: equal element counts, paired in row-major order (nki-language.md 12.2). The two
# results go back through the same 3-D patterns.
import nki
import nki.isa as nisa
import nki.language as nl

F = 256
SPLIT = 2


def gathered(t, row0, c):
    rows, cols = t.shape
    half = t.shape[0] if rows < 128 else rows // 2
    return t.ap(pattern=[[cols // SPLIT, SPLIT], [cols, half], [1, F]], offset=row0 * cols + c)


@nki.jit
def kernel(x, g):
    D, L = x.shape
    H = D // 2
    out = nl.ndarray((D, L), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(L // SPLIT // F):
        c = i * F
        lo = nl.ndarray((H * SPLIT, F), dtype=nl.float32, buffer=nl.sbuf)
        hi = nl.ndarray((H * SPLIT, F), dtype=nl.float32, buffer=nl.sbuf)
        gt = nl.ndarray((H * SPLIT, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=lo, src=gathered(x, 0, c))
        nisa.dma_copy(dst=hi, src=gathered(x, H, c))
        nisa.dma_copy(dst=gt, src=gathered(g, 0, c))
        a = nl.ndarray((H * SPLIT, F), dtype=nl.float32, buffer=nl.sbuf)
        b = nl.ndarray((H * SPLIT, F), dtype=nl.float32, buffer=nl.sbuf)
        # a = lo * g + hi ; b = hi * g - lo
        nisa.tensor_tensor(dst=a, data1=lo, data2=gt, op=nl.multiply)
        nisa.tensor_tensor(dst=a, data1=a, data2=hi, op=nl.add)
        nisa.tensor_tensor(dst=b, data1=hi, data2=gt, op=nl.multiply)
        nisa.tensor_tensor(dst=b, data1=b, data2=lo, op=nl.subtract)
        nisa.dma_copy(dst=gathered(out, 0, c), src=a)
        nisa.dma_copy(dst=gathered(out, H, c), src=b)
    return out
