import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


# A software pipeline written out by hand (session 30): the prologue loads row tile 0, iteration i
# issues the load of tile i + 1 into the other slot of a two-slot buffer before computing tile i
# from `x_buf[i % 2]`. The moves see each iteration's own tile once the pipeline is undone
# (src/loopnest/unpipeline.cpp, site parameter pipeline=undone).
@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    n = rows // 128
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i_blk in nl.affine_range(n // 2):
        x_buf_0 = nl.ndarray((nl.par_dim(128), cols), dtype=x.dtype, buffer=nl.sbuf)
        x_buf_1 = nl.ndarray((nl.par_dim(128), cols), dtype=x.dtype, buffer=nl.sbuf)
        x_buf_0[...] = nl.load(x[256*i_blk:256*i_blk + 128, :])
        x_buf_1[...] = nl.load(x[256*i_blk + 128:256*i_blk + 256, :])
        b = nl.load(bias)
        e_0 = nl.exp(x_buf_0)
        e_1 = nl.exp(x_buf_1)
        y_0 = nl.add(nl.multiply(e_0, 0.5), b)
        y_1 = nl.add(nl.multiply(e_1, 0.5), b)
        nl.store(out[256*i_blk:256*i_blk + 128, :], value=y_0)
        nl.store(out[256*i_blk + 128:256*i_blk + 256, :], value=y_1)
    return out
