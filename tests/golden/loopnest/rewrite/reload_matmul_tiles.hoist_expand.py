# Tutorial style (nl.* math, nl.ds slices, the weight loaded inside the innermost loop): rmsnorm
# then matmul, x (256, 256), w (2, 128, 1024). The load of w depends on (n, k) but not on the row
# tile m, so it is re-read from HBM once per row tile; hoist_expand moves it before `for m` into a
# buffer of 2 x 2 tiles. reload_matmul_grid.py and reload_matmul_api.py are the same nest.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    wt = nl.ndarray(shape=(N // NB, KT, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    for n in nl.affine_range(N // NB):
        for k in nl.affine_range(KT):
            wt[n, k, :, :] = nl.load(w[k, :, nl.ds(n * NB, NB)])
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[nl.ds(m * 128, 128), :])
        sq = nl.multiply(xt, xt)
        ss = nl.sum(sq, axis=1, keepdims=True)
        rs = nl.rsqrt(nl.multiply(ss, 1.0 / K))
        xn = nl.multiply(xt, rs)
        xT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nisa.nc_transpose(xn[:, nl.ds(k * 128, 128)])
            xT[k] = nl.copy(tp, dtype=x.dtype)
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                acc += nisa.nc_matmul(xT[k], wt[n, k, :, :])
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
    return out
