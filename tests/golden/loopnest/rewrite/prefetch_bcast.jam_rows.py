import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A pipeline over the rows of a small table: row s + 1 is loaded and broadcast over the partitions
# into the other slot of a ring while row s scales the input tile. src/loopnest/unpipeline.cpp
# undoes it (a load followed by a partition broadcast).
P = 128


@nki.jit
def kernel(x, w):
    _, cols = x.shape
    S, _ = w.shape
    out = nl.ndarray((S * P, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    x_t = nl.load(x)
    for s_blk in nl.affine_range(S // 2):
        w_ring_0 = nl.ndarray((nl.par_dim(P), cols), dtype=w.dtype, buffer=nl.sbuf)
        w_ring_1 = nl.ndarray((nl.par_dim(P), cols), dtype=w.dtype, buffer=nl.sbuf)
        w_ring_0[...] = nl.broadcast_to(src=nl.load(w[2*s_blk:2*s_blk + 1, :]), shape=(P, cols))
        w_ring_1[...] = nl.broadcast_to(src=nl.load(w[2*s_blk + 1:2*s_blk + 2, :]), shape=(P, cols))
        x_t_tile = nl.exp(x_t)
        y_0 = nl.multiply(x_t_tile, w_ring_0)
        y_1 = nl.multiply(x_t_tile, w_ring_1)
        nl.store(out[256*s_blk:256*s_blk + 128, :], value=y_0)
        nl.store(out[256*s_blk + 128:256*s_blk + 256, :], value=y_1)
    return out
