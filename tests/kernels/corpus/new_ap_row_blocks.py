# The newer `nki` API with explicit access patterns: HBM tiles read and written through
# tensor.ap(pattern=[[step, count], ...], offset=...) (a row block, and a column half of it as a
# strided pattern), nl.fori_loop over a helper that accumulates into an SBUF buffer, and
# destination-first nisa.tensor_tensor / tensor_scalar.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(a, b):
    rows, cols = a.shape
    half = cols // 2
    out = nl.ndarray((rows, half), dtype=a.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(rows // 128):
        lo = nl.ndarray((128, half), dtype=nl.float32, buffer=nl.sbuf)
        hi = nl.ndarray((128, half), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=lo, src=a.ap(pattern=[[cols, 128], [1, half]], offset=t * 128 * cols))
        nisa.dma_copy(dst=hi, src=a.ap(pattern=[[cols, 128], [1, half]], offset=t * 128 * cols + half))
        bt = nl.ndarray((128, half), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=bt, src=b[t * 128:(t + 1) * 128, :])
        acc = nl.ndarray((128, half), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=acc, data1=lo, data2=hi, op=nl.add)

        def add_b(i):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=bt, op=nl.add)

        nl.fori_loop(0, 3, add_b)
        nisa.tensor_scalar(dst=acc, data=acc, op0=nl.multiply, operand0=0.5)
        nisa.dma_copy(dst=out.ap(pattern=[[half, 128], [1, half]], offset=t * 128 * half), src=acc)
    return out
