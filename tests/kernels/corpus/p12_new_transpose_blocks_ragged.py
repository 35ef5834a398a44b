# An out-of-place transpose of a 200 x 160 matrix with a scale, in the newer `nki` API: blocks of
# pmax x pmax cut by min() on both axes, nc_transpose(dst=psum, data=) on the Tensor Engine,
# activation(dst=, op=nl.copy, data=, scale=) out of PSUM, nested plain range loops.
import nki
import nki.isa as nisa
import nki.language as nl

ALPHA = 0.5


@nki.jit
def transpose_scaled(x):
    R, C = x.shape
    B = nl.tile_size.pmax
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    for rb in range((R + B - 1) // B):
        r0, rs = rb * B, min(B, R - rb * B)
        for cb in range((C + B - 1) // B):
            c0, cs = cb * B, min(B, C - cb * B)
            blk = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=blk[:rs, :cs], src=x[r0:r0 + rs, c0:c0 + cs])
            tp = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=tp[:cs, :rs], data=blk[:rs, :cs])
            res = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.sbuf)
            nisa.activation(dst=res[:cs, :rs], op=nl.copy, data=tp[:cs, :rs], scale=ALPHA)
            nisa.dma_copy(dst=out[c0:c0 + cs, r0:r0 + rs], src=res[:cs, :rs])
    return out
