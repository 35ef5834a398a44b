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
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[nl.ds(m * 128, 128), :])
        xT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            xT[k] = nisa.nc_transpose(xt[:, nl.ds(k * 128, 128)])
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                acc += nisa.nc_matmul(xT[k], nl.load(w[k, :, nl.ds(n * NB, NB)]))
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=nisa.tensor_copy(acc, dtype=x.dtype))
    return out
