import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# One loop over (row tile, column tile) pairs, the coordinates recovered by division, prefetching
# the next pair's tile into a two-slot ring; the last row tile is ragged (rows = 3 * 128 + 64). The
# ring carries the loop, so it splits into its nest (unflatten.cpp) only once the pipeline is
# undone (src/loopnest/unpipeline.cpp), and is then written affine.
P = 128
W = 128


@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(4):
        ring = nl.ndarray((nl.par_dim(P), 256), dtype=x.dtype, buffer=nl.sbuf)
        ring[0:min(-128*t + 448, 128), :] = nl.load(x[128*t:128*t + min(-128*t + 448, 128), :])
        b = nl.load(bias[0:min(-128*t + 448, 128), :])
        y = nl.add(nl.multiply(nl.exp(ring[0:min(-128*t + 448, 128), :]), 0.5), b)
        nl.store(out[128*t:128*t + min(-128*t + 448, 128), :], value=y)
    return out
