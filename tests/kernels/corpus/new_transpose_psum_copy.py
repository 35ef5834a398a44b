# 2-D transpose in the newer `nki` API through the Tensor Engine: each [128, 128] block is loaded
# by nisa.dma_copy, transposed into a PSUM tile with nisa.nc_transpose(dst=, data=), copied out of
# PSUM by nisa.activation(dst=, op=nl.copy) (the Scalar Engine, as the docs advise on v2) and
# stored at the mirrored block. Block indices come from divmod over one flat loop.
import nki
import nki.isa as nisa
import nki.language as nl

B = 128


@nki.jit
def transpose2d(x):
    R, C = x.shape
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    n_c = C // B
    for flat in nl.affine_range((R // B) * n_c):
        i, j = divmod(flat, n_c)
        blk = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[i * B:(i + 1) * B, j * B:(j + 1) * B])
        tp = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=tp, data=blk)
        res = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=res, op=nl.copy, data=tp)
        nisa.dma_copy(dst=out[j * B:(j + 1) * B, i * B:(i + 1) * B], src=res)
    return out


kernel = transpose2d
