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
    w_ring = nl.ndarray((2, nl.par_dim(P), cols), dtype=w.dtype, buffer=nl.sbuf)
    x_t = nl.load(x)
    w_ring[0] = nl.load(w[0:1, :]).broadcast_to((P, cols))
    for s in nl.sequential_range(S):
        if s + 1 < S:
            w_ring[(s + 1) % 2] = nl.load(w[s + 1:s + 2, :]).broadcast_to((P, cols))
        y = nl.multiply(nl.exp(x_t), w_ring[s % 2])
        nl.store(out[s * P:(s + 1) * P, :], value=y)
    return out
