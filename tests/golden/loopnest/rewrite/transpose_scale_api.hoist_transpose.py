# Newer nki API (destination-first calls, partition dim first): the nest of
# transpose_scale_tiles.py, x (256, 256), w (2, 128, 1024), g (256, 1); the transpose is
# nisa.nc_transpose, every tile declared where it is written.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w, g):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    g_cols = nl.ndarray((128, KT, 1), dtype=g.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(KT):
        nisa.dma_copy(dst=g_cols[:, k, :], src=g[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(M // 128):
        xt = nl.ndarray((128, K), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[m * 128:(m + 1) * 128, :])
        sq = nl.ndarray((128, K), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=sq, op=nl.square, data=xt)
        ss = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=ss, op=nl.add, data=sq, axis=1, keepdims=True)
        rs = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rs, op=nl.rsqrt, data=ss, scale=1.0 / K)
        xn = nl.ndarray((128, K), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=xn, data=xt, op0=nl.multiply, operand0=rs)
        xn_t = nl.ndarray(shape=(128, KT, 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            xT = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
            nisa.nc_transpose(dst=tp, data=xn[:, k * 128:(k + 1) * 128])
            nisa.tensor_copy(dst=xT, src=tp)
            nisa.tensor_scalar(dst=xn_t[:, k, :], data=xT, op0=nl.multiply, operand0=g_cols[:, k, :])
        for n in nl.affine_range(N // NB):
            acc = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                wt = nl.ndarray((128, NB), dtype=w.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=wt, src=w[k, :, n * NB:(n + 1) * NB])
                nisa.nc_matmul(dst=acc, stationary=xn_t[:, k, :], moving=wt)
            res = nl.ndarray((128, NB), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], src=res)
    return out
