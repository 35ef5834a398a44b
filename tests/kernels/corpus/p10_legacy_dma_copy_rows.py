import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def abs_diff_rows(x, y):
    # |x - y| row tiles with explicit DMA instructions in the legacy API: nisa.dma_copy moves
    # HBM -> SBUF into pre-declared tiles and SBUF -> HBM out, the ragged last tile by slices.
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range((rows + 127) // 128):
        n = min(128, rows - i * 128)
        xt = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        yt = nl.ndarray((128, cols), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt[0:n, :], src=x[i * 128:i * 128 + n, :])
        nisa.dma_copy(dst=yt[0:n, :], src=y[i * 128:i * 128 + n, :])
        d = nisa.tensor_tensor(xt[0:n, :], yt[0:n, :], op=np.subtract)
        r = nl.abs(d)
        nisa.dma_copy(dst=out[i * 128:i * 128 + n, :], src=r)
    return out
