# a (128, 4096), b (128, 4096).
# A stepped loop: the variable is the column offset (`range(0, n, 256)`), each iteration loads a
# 256-column chunk of both inputs, computes a*b + a on the Vector Engine and stores the chunk.
# tile_size coarsens it by its step (`range(0, n, 512)`, 512-column tiles).
import nki
import nki.language as nl
import nki.isa as nisa

STEP = 512


@nki.jit
def kernel(a, b):
    rows, cols = a.shape
    out = nl.ndarray((rows, cols), dtype=a.dtype, buffer=nl.shared_hbm)
    for col in range(0, cols, STEP):
        end = col + STEP
        ta = nl.ndarray((rows, STEP), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((rows, STEP), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=a[0:rows, col:end])
        nisa.dma_copy(dst=tb, src=b[0:rows, col:end])
        prod = nl.ndarray((rows, STEP), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=prod, data1=ta, data2=tb, op=nl.multiply)
        total = nl.ndarray((rows, STEP), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=total, data1=prod, data2=ta, op=nl.add)
        nisa.dma_copy(dst=out[0:rows, col:end], src=total)
    return out
