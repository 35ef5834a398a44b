# Tutorial style with helper functions (issue 13): silu of the rows in a helper written with nl.*
# math, the weight tile loaded by a helper in the innermost loop, a ragged last column tile under
# masks. x (256, 256), w (2, 128, 640). Every site of the loop-nest form, those that open the
# helpers (helpers=open) and hoist_expand's among them, must keep its result.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def silu_tile(t):
    e = nl.exp(nl.negative(t))
    return nl.divide(t, nl.add(e, 1.0))


def load_w(w, k, n, tn, i_k, i_n, n_size):
    return nl.load(w[k, i_k, n * tn + i_n], mask=(n * tn + i_n < n_size))


@nki.jit
def silu_matmul_kernel(x, w):
    M, K = x.shape
    KT, TK, N = w.shape
    TN = 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    i_k = nl.arange(TK)[:, None]
    i_m = nl.arange(128)[:, None]
    i_n = nl.arange(TN)[None, :]
    for m in nl.affine_range(M // 128):
        x_tile = nl.load(x[nl.ds(m * 128, 128), :])
        h = silu_tile(x_tile)
        for n in nl.affine_range((N + TN - 1) // TN):
            acc = nl.zeros((128, TN), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                w_tile = load_w(w, k, n, TN, i_k, i_n, N)
                acc += nl.matmul(h[:, nl.ds(k * TK, TK)], w_tile)
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m * 128 + i_m, n * TN + i_n], value=res, mask=(n * TN + i_n < N))
    return out
