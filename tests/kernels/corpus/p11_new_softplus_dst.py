# Softplus log(1 + exp(x)) and its gradient sigmoid(x) in the newer `nki` API: every instruction
# destination-first into a tile declared with nl.ndarray, nisa.dma_copy both ways, a loop over
# plain `range` (NKI 0.7), two outputs.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def softplus_and_grad(x):
    rows, cols = x.shape
    y = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    dy = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in range(rows // 128):
        xt = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[t * 128:(t + 1) * 128, :])
        e = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=xt)
        sp = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=e, data=e, op0=nl.add, operand0=1.0)
        nisa.activation(dst=sp, op=nl.log, data=e)
        g = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=g, op=nl.sigmoid, data=xt)
        nisa.dma_copy(dst=y[t * 128:(t + 1) * 128, :], src=sp)
        nisa.dma_copy(dst=dy[t * 128:(t + 1) * 128, :], src=g)
    return y, dy
