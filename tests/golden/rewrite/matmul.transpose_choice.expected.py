# inputs: 128x256 2x128x512
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    # x: (128, K=256) rows; w: (K/128, 128, 512). out = 2 * x @ w
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)
    x_tile = nl.load(x)
    x_t = nl.ndarray((2, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(2):
        t_psum = nisa.nc_transpose(x_tile[:, k * 128:(k + 1) * 128])
        x_t[k] = nl.copy(t_psum, dtype=x.dtype)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(2):
        w_tile = nl.load(w[k])
        acc += nisa.nc_matmul(x_t[k], w_tile)
    res = nl.copy(acc, dtype=x.dtype)
    scaled = nl.multiply(res, 2.0)
    nl.store(out, value=scaled)
    return out
