# The newer `nki` API over a flattened tile loop: destination-first nisa calls, the row and
# column block of each tile from `divmod`-style arithmetic on one loop index, 128-column tiles.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x, scale):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    ncb = cols // 128
    for t in nl.affine_range((rows // 128) * ncb):
        rb = t // ncb
        cb = t % ncb
        xt = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[rb * 128:(rb + 1) * 128, cb * 128:(cb + 1) * 128])
        st = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=st, src=scale[rb * 128:(rb + 1) * 128, 0:1])
        yt = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=yt, data=xt, op0=nl.multiply, operand0=st, op1=nl.add, operand1=1.0)
        nisa.dma_copy(dst=out[rb * 128:(rb + 1) * 128, cb * 128:(cb + 1) * 128], src=yt)
    return out
