# RMSNorm in the newer `nki` API: nisa.dma_copy loads and stores, nisa.activation(dst=, op=
# nl.square, reduce_op=nl.add, reduce_res=) producing the row sums in the same instruction,
# tensor_scalar(dst=) with two ops (mean then rsqrt-free scaling via nl.rsqrt activation), and
# nisa.tensor_tensor(dst=) with a partition-broadcast weight made by nl.broadcast_to.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def rmsnorm(a, g, eps):
    rows, cols = a.shape
    out = nl.ndarray((rows, cols), dtype=a.dtype, buffer=nl.shared_hbm)
    g_row = nl.ndarray((1, cols), dtype=g.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_row, src=g.reshape((1, cols)))
    g_all = nl.broadcast_to(g_row, shape=(128, cols))
    for t in nl.affine_range(rows // 128):
        x = nl.ndarray((128, cols), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=a[t * 128:(t + 1) * 128, :])
        sq = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        ssum = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=sq, op=nl.square, data=x, reduce_op=nl.add, reduce_res=ssum)
        mean_eps = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mean_eps, data=ssum, op0=nl.multiply, operand0=1.0 / cols, op1=nl.add, operand1=eps)
        rstd = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=mean_eps)
        y = nl.ndarray((128, cols), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=x, op0=nl.multiply, operand0=rstd)
        nisa.tensor_tensor(dst=y, data1=y, data2=g_all, op=nl.multiply)
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=y)
    return out


kernel = rmsnorm
