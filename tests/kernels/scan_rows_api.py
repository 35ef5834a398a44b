# Newer nki API (destination-first ISA calls, each tile declared, then written): the selective-scan
# row nest of scan_rows_tiles.py (x, y (256, 1024)). Each tile's declaration comes before the
# statement that writes it, so after chunk_rows it belongs to the chunk loop, not to the row loop.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        x_tile = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[r * 128:(r + 1) * 128, :])
        y_tile = nl.ndarray((128, cols), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=y_tile, src=y[r * 128:(r + 1) * 128, :])
        decay = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=decay, op=nl.exp, data=x_tile, scale=1.0 / 1024)
        h = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor_scan(dst=h, data0=decay, data1=y_tile, initial=0.0, op0=nl.multiply, op1=nl.add)
        hy = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=hy, data1=h, data2=y_tile, op=nl.multiply)
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=hy)
    return out
