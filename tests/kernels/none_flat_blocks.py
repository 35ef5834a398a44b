import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A flat list preallocated with None (`buf = [None] * (R * B)`) filled by item assignment
# `buf[r * B + b]` with scaled column blocks of each row tile, then read back block by block by a
# second loop nest that sums each row's blocks and stores them.
P = 128


@nki.jit
def kernel(x, scale):
    rows, _, cols = x.shape
    width = scale.shape[1]
    per_row = cols // width
    out = nl.ndarray((rows, P, width), dtype=x.dtype, buffer=nl.shared_hbm)
    buf = [None] * (rows * per_row)
    s_tile = nl.load(scale)
    for r in nl.affine_range(rows):
        x_tile = nl.load(x[r])
        for b in nl.affine_range(per_row):
            buf[r * per_row + b] = nl.multiply(x_tile[:, b * width:(b + 1) * width], s_tile)
    for r in nl.affine_range(rows):
        total = nl.zeros((P, width), dtype=nl.float32, buffer=nl.sbuf)
        for b in range(per_row):
            total = nl.add(total, buf[r * per_row + b])
        nl.store(out[r], value=total)
    return out
