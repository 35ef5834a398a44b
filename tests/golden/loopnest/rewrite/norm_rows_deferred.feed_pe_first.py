# Bundled style: the rmsnorm_matmul nest at a small size (x (2, 128, 256), w (2, 128, 512)) after
# forward_defer (one row loop, the row scale applied to the matmul's result). The row's square /
# sum / rsqrt come before the transposes, which do not need them: feed_pe_first moves them after
# the transposes (the transposes' PSUM copies then do not queue behind them on the same engine),
# and must keep the result.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    # x: (M/128, 128, K), w: (K/128, 128, N). One row loop: the row's 1/sqrt(mean(x^2)) (square,
    # reduce, rsqrt), the row transposed 128x128 on the Tensor Engine and multiplied by the resident
    # w tiles per 512-column chunk, each chunk's result scaled by the row's 1/rms out of PSUM.
    m_tiles, _, k_size = x.shape
    k_tiles, _, n_size = w.shape
    out = nl.ndarray((m_tiles, 128, n_size), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.load(identity)

    w_tiles = nl.ndarray((k_tiles, nl.par_dim(128), n_size), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        w_tiles[k] = nl.load(w[k])

    for m in nl.affine_range(m_tiles):
        x_tile = nl.load(x[m])
        x_t = nl.ndarray((k_tiles, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(k_tiles):
            t_psum = nisa.nc_matmul(x_tile[:, 128*k:128*k + 128], ident, is_moving_onezero=True, is_transpose=True)
            x_t[k] = nl.copy(t_psum, dtype=x.dtype)
        squares = nisa.activation(op=nl.square, data=x_tile)
        total = nisa.tensor_reduce(nl.add, data=squares, axis=[1], keepdims=True)
        inv_rms = nisa.activation(op=nl.rsqrt, data=total, scale=1.0 / k_size)
        for n in nl.affine_range(n_size // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                acc += nisa.nc_matmul(x_t[k], w_tiles[k, :, n * 512:(n + 1) * 512])
            res = nisa.tensor_scalar(data=acc, op0=nl.multiply, operand0=inv_rms, dtype=x.dtype)
            nl.store(out[m, :, n * 512:(n + 1) * 512], value=res)
    return out
