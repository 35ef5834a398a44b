# Assistant-drafted legacy kernel: tile sizes in a module dict read as `P, F = TILE["P"], TILE["F"]`
# and as helper defaults (`cols=TILE["F"]`), names imported from the modules. Rows of w broadcast
# onto every partition on chip in 1024-column chunks (4 KiB per partition, wider than a PSUM bank):
# broadcast_on_chip narrows the dict's entry, which every reader of the size follows.
# out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
from neuronxcc.nki.language import affine_range, float32, load, multiply, ndarray, sbuf, shared_hbm, store, zeros

TILE = {"P": 128, "F": 1024}


def row_on_every_partition(w, s, start, *, partitions=TILE["P"], cols=TILE["F"]):
    row = load(w[s:s + 1, start:start + cols])
    return row.broadcast_to((partitions, cols))


@nki.jit
def kernel(x, w):
    P, F = TILE["P"], TILE["F"]
    channels, width = x.shape
    steps = w.shape[0]
    out = ndarray((channels, width), dtype=x.dtype, buffer=shared_hbm)
    for block in affine_range(channels // P):
        for chunk in affine_range(width // F):
            x_tile = load(x[block * P:(block + 1) * P, chunk * F:(chunk + 1) * F])
            acc = zeros((P, F), dtype=float32, buffer=sbuf)
            for s in affine_range(steps):
                acc += multiply(x_tile, row_on_every_partition(w, s, chunk * F))
            store(out[block * P:(block + 1) * P, chunk * F:(chunk + 1) * F], value=acc)
    return out
