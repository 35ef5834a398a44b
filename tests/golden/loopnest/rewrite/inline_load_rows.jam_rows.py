# A row-tiled matmul whose weight tile is loaded inline, as an argument of the matmul call, inside
# the loops over rows, column blocks and K: every row tile loads every weight tile again.
# x (256, 256), w (2, 128, 1024). jam_rows on `for m` names the inline load as a statement of its
# own and shares it between the rows it runs together (the weight is loaded half as often).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    M, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    xt_0 = nl.load(x[nl.ds(0, 128), :])
    xt_1 = nl.load(x[nl.ds(128, 128), :])
    xT_0 = nl.ndarray((KT, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
    xT_1 = nl.ndarray((KT, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(KT):
        xT_0[k, :, :] = nisa.nc_transpose(xt_0[:, 128*k:128*k + 128])
        xT_1[k, :, :] = nisa.nc_transpose(xt_1[:, 128*k:128*k + 128])
    for n in nl.affine_range(N // NB):
        acc_0 = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
        acc_1 = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(KT):
            w_tile = nl.load(w[k, :, nl.ds(n * NB, NB)])
            acc_0[...] += nisa.nc_matmul(xT_0[k, :, :], w_tile)
            acc_1[...] += nisa.nc_matmul(xT_1[k, :, :], w_tile)
        nl.store(out[nl.ds(0, 128), nl.ds(n * NB, NB)], value=nisa.tensor_copy(acc_0, dtype=x.dtype))
        nl.store(out[nl.ds(128, 128), nl.ds(n * NB, NB)], value=nisa.tensor_copy(acc_1, dtype=x.dtype))
    return out
