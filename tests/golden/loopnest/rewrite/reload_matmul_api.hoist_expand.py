# Newer nki API (destination-first calls, partition dim first): the nest of reload_matmul_tiles.py,
# x (256, 256), w (2, 128, 1024), the weight tile declared and loaded inside the innermost loop.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    wt = nl.ndarray((128, N // NB, KT, 512), dtype=w.dtype, buffer=nl.sbuf)
    for n in nl.affine_range(N // NB):
        for k in nl.affine_range(KT):
            nisa.dma_copy(dst=wt[:, n, k, :], src=w[k, :, n * NB:(n + 1) * NB])
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
        xT = nl.ndarray((128, KT, 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=tp, data=xn[:, k * 128:(k + 1) * 128])
            nisa.tensor_copy(dst=xT[:, k, :], src=tp)
        for n in nl.affine_range(N // NB):
            acc = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                nisa.nc_matmul(dst=acc, stationary=xT[:, k, :], moving=wt[:, n, k, :])
            res = nl.ndarray((128, NB), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], src=res)
    return out
