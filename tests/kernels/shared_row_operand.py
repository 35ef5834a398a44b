# Two nl.matmul calls transposing the same row tile (a gated unit: gate and up projections of one
# x tile), inside a column-block loop the row tile does not depend on. x (256, 256), wg and wu
# (2, 128, 1024). hoist_transpose, at either matmul, transposes each row tile once for both.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def gated_projection(x, wg, wu):
    M, K = x.shape
    KT, _, N = wg.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        xt = nl.load(x[nl.ds(m * 128, 128), :])
        for n in nl.affine_range(N // 512):
            g = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            u = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                g += nl.matmul(xt[:, nl.ds(k * 128, 128)], nl.load(wg[k, :, nl.ds(n * 512, 512)]))
                u += nl.matmul(xt[:, nl.ds(k * 128, 128)], nl.load(wu[k, :, nl.ds(n * 512, 512)]))
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * 512, 512)], value=nl.multiply(g, u))
    return out
