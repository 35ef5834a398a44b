# The chain of transpose_scale_tiles.py as another author writes it: nisa.nc_transpose, the PSUM
# copy, and gamma applied by nl.multiply with a (128, 1) column broadcast along the free axis.
# x (256, 256), w (2, 128, 1024), g (256, 1).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, g):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    g_cols = nl.ndarray((KT, nl.par_dim(128), 1), dtype=g.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(KT):
        g_cols[k] = nl.load(g[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[m * 128:(m + 1) * 128, :])
        ss = nl.sum(nl.square(xt), axis=[1], keepdims=True)
        xn = nl.multiply(xt, nl.rsqrt(nl.multiply(ss, 1.0 / K)))
        xn_t = nl.ndarray(shape=(KT, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nisa.nc_transpose(xn[:, k * 128:(k + 1) * 128])
            xT = nl.copy(tp, dtype=x.dtype)
            xn_t[k, :, :] = nl.multiply(xT, g_cols[k])
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                wt = nl.load(w[k, :, n * NB:(n + 1) * NB])
                acc += nisa.nc_matmul(xn_t[k, :, :], wt)
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], value=res)
    return out
