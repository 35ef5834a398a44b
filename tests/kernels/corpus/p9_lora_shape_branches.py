import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def load_block(src, row, col, rows=128, cols=None, dtype=None):
    cols = src.shape[1] - col if cols is None else cols
    t = nl.load(src[row:row + rows, col:col + cols])
    return t if dtype is None else t.astype(dtype)


@nki.jit
def lora(x, w, a, b, scale=0.5):
    """y = x W + scale * (x A) B with branches on shapes chosen at trace time (the rank is one
    partition tile or not, K fits one tile or not), a helper with default and None arguments,
    and keyword-argument nisa.nc_matmul."""
    M, K = x.shape
    N = w.shape[1]
    R = a.shape[1]
    single_k = K <= 128
    kt = 1 if single_k else K // 128
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        xT = nl.ndarray((kt, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(kt):
            xT[k] = nl.copy(nisa.nc_transpose(load_block(x, m * 128, k * 128, cols=128)))
        h_ps = nl.zeros((R, 128), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(kt):
            h_ps += nisa.nc_matmul(stationary=load_block(a, k * 128, 0), moving=xT[k])
        if R <= 128:
            hT = nl.multiply(h_ps, scale)
        else:
            raise ValueError("rank above one partition tile")
        y_ps = nl.zeros((128, N), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(kt):
            y_ps += nisa.nc_matmul(stationary=xT[k], moving=load_block(w, k * 128, 0))
        y_ps += nisa.nc_matmul(stationary=hT, moving=load_block(b, 0, 0, rows=R))
        nl.store(out[m * 128:(m + 1) * 128, :], value=nl.copy(y_ps))
    return out
