# A helper function called inside an expression of a statement (`nl.add(nl.multiply(acc, 2.0),
# _gate(acc))`, `value=nl.add(_gate(y), 1.0)`), in a row loop whose weight tiles are loaded again
# for every row tile. x (256, 256), w (2, 128, 1024). Opening the helper names the values the
# statement reads (the inner call evaluated before the helper, the helper's result), so jam_rows on
# `for m` (helpers=open) shares the weight loads between the rows it runs together.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def _gate(t):
    return nl.multiply(t, nl.sigmoid(t))


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
                w_tile = nl.load(w[k, :, nl.ds(n * NB, NB)])
                acc += nisa.nc_matmul(xT[k], w_tile)
            y = nl.add(nl.multiply(acc, 2.0), _gate(acc))
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=nl.add(_gate(y), 1.0))
    return out
