# Newer API: each 128-row block of x brought to the stationary layout by a transposing DMA written as
# a `.permute((1, 0))` view (`nisa.dma_copy(dst=xT, src=x[rows, :].permute((1, 0)))`), nc_matmul into
# a declared PSUM tile, a ReLU evacuation by activation(dst=).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def relu_proj(x, w):
    n, k = x.shape
    _, m = w.shape
    out = nl.ndarray((n, m), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.ndarray((k, m), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=w_sb, src=w)
    for b in range(n // 128):
        xT = nl.ndarray((k, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xT, src=x[b * 128:(b + 1) * 128, :].permute((1, 0)))
        acc = nl.ndarray((128, m), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=acc, stationary=xT, moving=w_sb)
        y = nl.ndarray((128, m), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=y, op=nl.relu, data=acc)
        nisa.dma_copy(dst=out[b * 128:(b + 1) * 128, :], src=y)
    return out
