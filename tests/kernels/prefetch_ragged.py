import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A hand-written pipeline over row tiles whose last tile is ragged (rows = 3 * 128 + 64): a helper
# loads the next tile's rows into PART of the other slot of a two-slot ring, and the body reads the
# same rows of its own slot; the result goes through a scratch ring written and stored in the same
# iteration. src/loopnest/unpipeline.cpp undoes both (a region of a slot, a per-iteration ring).
P = 128


def load_rows(ring, slot, src, r0, nrows):
    ring[slot, 0:nrows, :] = nl.load(src[r0:r0 + nrows, :])


@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    n = (rows + P - 1) // P
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    ring = nl.ndarray((2, nl.par_dim(P), cols), dtype=x.dtype, buffer=nl.sbuf)
    res = nl.ndarray((2, nl.par_dim(P), cols), dtype=x.dtype, buffer=nl.sbuf)
    load_rows(ring, 0, x, 0, min(P, rows))
    for i in nl.sequential_range(n):
        r0 = i * P
        nr = min(P, rows - r0)
        if i + 1 < n:
            load_rows(ring, (i + 1) % 2, x, r0 + P, min(P, rows - r0 - P))
        b = nl.load(bias[0:nr, :])
        e = nl.exp(ring[i % 2, 0:nr, :])
        res[i % 2, 0:nr, :] = nl.add(nl.multiply(e, 0.5), b)
        nl.store(out[r0:r0 + nr, :], value=res[i % 2, 0:nr, :])
    return out
