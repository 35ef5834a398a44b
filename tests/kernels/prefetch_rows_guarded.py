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
    x_buf = nl.ndarray((2, nl.par_dim(128), cols), dtype=x.dtype, buffer=nl.sbuf)
    x_buf[0] = nl.load(x[0:128, :])
    for i in nl.sequential_range(n):
        if i + 1 < n:
            x_buf[(i + 1) % 2] = nl.load(x[(i + 1) * 128:(i + 2) * 128, :])
        b = nl.load(bias)
        e = nl.exp(x_buf[i % 2])
        y = nl.add(nl.multiply(e, 0.5), b)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
