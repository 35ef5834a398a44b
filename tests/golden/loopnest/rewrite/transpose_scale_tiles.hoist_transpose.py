# Bundled style: per row tile the rows are normalized; then per column block of w the normalized
# rows are transposed on the Tensor Engine (a matmul by the identity), copied out of PSUM and
# scaled by gamma (one value per partition of the transposed tile) before the matmul. The
# transposes, copies and scalings do not depend on the column block but are redone for each.
# x (256, 256), w (2, 128, 1024), g (256, 1). hoist_transpose moves the whole chain before
# `for n` into a buffer of the 2 scaled transposed tiles of the row tile.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, g):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    ident = nl.load(nl.shared_constant(np.identity(128, dtype=np.float32)))
    g_cols = nl.ndarray((KT, nl.par_dim(128), 1), dtype=g.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(KT):
        g_cols[k] = nl.load(g[k * 128:(k + 1) * 128, :])
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[m * 128:(m + 1) * 128, :])
        sq = nisa.activation(op=nl.square, data=xt)
        ss = nisa.tensor_reduce(nl.add, data=sq, axis=[1], keepdims=True)
        rs = nisa.activation(op=nl.rsqrt, data=ss, scale=1.0 / K)
        xn = nisa.tensor_scalar(data=xt, op0=nl.multiply, operand0=rs)
        xn_t = nl.ndarray(shape=(KT, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nisa.nc_matmul(xn[:, k * 128:(k + 1) * 128], ident, is_moving_onezero=True, is_transpose=True)
            xT = nl.copy(tp, dtype=x.dtype)
            xn_t[k, :, :] = nisa.tensor_scalar(data=xT, op0=nl.multiply, operand0=g_cols[k])
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                wt = nl.load(w[k, :, n * NB:(n + 1) * NB])
                acc += nisa.nc_matmul(xn_t[k, :, :], wt)
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * NB:(n + 1) * NB], value=res)
    return out
