# Newer nki API (destination-first calls): whole_rows.py, each row's four tiles declared in the loop.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, y):
    R, C = x.shape
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // 128):
        xt = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[r * 128:(r + 1) * 128, :])
        yt = nl.ndarray((128, C), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=yt, src=y[r * 128:(r + 1) * 128, :])
        e = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=xt)
        z = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=z, data1=e, data2=yt, op=nl.multiply)
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=z)
    return out
