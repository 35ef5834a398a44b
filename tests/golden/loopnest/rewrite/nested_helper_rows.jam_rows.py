# A helper function called inside an expression of a statement (`nl.add(nl.multiply(acc, 2.0),
# _gate(acc))`, `value=nl.add(_gate(y), 1.0)`), in a row loop whose weight tiles are loaded again
# for every row tile. x (256, 256), w (2, 128, 1024). Opening the helper names the values the
# statement reads (the inner call evaluated before the helper, the helper's result), so jam_rows on
# `for m` (helpers=open) shares the weight loads between the rows it runs together.
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
        inner_result_0 = nl.multiply(acc_0, 2.0)
        inner_result_1 = nl.multiply(acc_1, 2.0)
        gate_result_0 = nl.multiply(acc_0, nl.sigmoid(acc_0))
        gate_result_1 = nl.multiply(acc_1, nl.sigmoid(acc_1))
        y_0 = nl.add(inner_result_0, gate_result_0)
        y_1 = nl.add(inner_result_1, gate_result_1)
        gate_result2_0 = nl.multiply(y_0, nl.sigmoid(y_0))
        gate_result2_1 = nl.multiply(y_1, nl.sigmoid(y_1))
        nl.store(out[nl.ds(0, 128), nl.ds(n * NB, NB)], value=nl.add(gate_result2_0, 1.0))
        nl.store(out[nl.ds(128, 128), nl.ds(n * NB, NB)], value=nl.add(gate_result2_1, 1.0))
    return out
