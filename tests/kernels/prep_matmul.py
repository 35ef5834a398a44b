# A row loop that loads a row tile, transposes it on the Tensor Engine, copies it out of PSUM and
# multiplies it with a resident rhs in column chunks. pipeline_prep splits the loop after the copy
# (the transposed rows kept for every row tile); the result must not change.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    out = nl.ndarray((256, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    rhs = nl.load(w)
    for m in nl.affine_range(2):
        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])
        t_psum = nisa.nc_matmul(x_tile, ident, is_moving_onezero=True, is_transpose=True)
        x_t = nl.copy(t_psum, dtype=nl.float32)
        for n in nl.affine_range(2):
            acc = nisa.nc_matmul(x_t, rhs[:, n * 256:(n + 1) * 256])
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m * 128:(m + 1) * 128, n * 256:(n + 1) * 256], value=res)
    return out
