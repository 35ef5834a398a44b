# Explicit transposes redone per column block: the row tile's K blocks are transposed on the Tensor
# Engine (nisa.nc_transpose into PSUM, nl.copy to SBUF) inside `for n`, though they do not depend
# on n. x (256, 256), w (2, 128, 1024). hoist_transpose moves them before `for n` into a buffer of
# 2 transposed tiles per row tile (the copy goes: the fill assigns the transpose into SBUF).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[nl.ds(m * 128, 128), :])
        xn = nl.multiply(xt, 0.5)
        xn_t = nl.ndarray(shape=(KT, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            xn_t[k, :, :] = nisa.nc_transpose(xn[:, nl.ds(k * 128, 128)])
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                wt = nl.load(w[k, :, nl.ds(n * NB, NB)])
                acc += nisa.nc_matmul(xn_t[k, :, :], wt)
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
    return out
