# Additive position bias in the newer `nki` API: nisa.iota(dst=, pattern=, offset=,
# channel_multiplier=) fills each row tile with (row index * D + column) per element, scaled by
# tensor_scalar(dst=) and added by tensor_tensor(dst=); the tile's row offset changes per loop
# iteration through the iota offset.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def add_position_bias(x, scale):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(rows // 128):
        xt = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[t * 128:(t + 1) * 128, :])
        pos = nl.ndarray((128, cols), dtype=nl.int32, buffer=nl.sbuf)
        nisa.iota(dst=pos, pattern=[[1, cols]], offset=t * 128 * cols, channel_multiplier=cols)
        pos_f = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=pos_f, src=pos)
        nisa.tensor_scalar(dst=pos_f, data=pos_f, op0=nl.multiply, operand0=scale)
        nisa.tensor_tensor(dst=xt, data1=xt, data2=pos_f, op=nl.add)
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=xt)
    return out


def kernel(x):
    return add_position_bias(x, 0.001)
