# Bundled style: an fp32 sum of products started from its first term rather than from zero
# (h, c: (S, 128, 512); out = sum over s of h[s] * c[s]): the first iteration writes the
# accumulator with the product, the others add to it. psum_accumulate keeps it in PSUM (each add
# reads one PSUM input); the plain first write is a Vector Engine write like the adds.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(h, c):
    states = h.shape[0]
    out = nl.ndarray((128, 512), dtype=h.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for s in nl.sequential_range(states):
        h_tile = nl.load(h[s])
        c_tile = nl.load(c[s])
        if s == 0:
            acc[...] = nl.multiply(h_tile, c_tile)
        else:
            acc[...] = nl.add(acc, nl.multiply(h_tile, c_tile))
    nl.store(out, value=acc)
    return out
