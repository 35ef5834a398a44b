import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A flat list preallocated with None filled block by block, read inside the loops that fill it:
# each row tile's blocks (`buf[r * per_row + b]`, bound by the earlier iterations of the block
# loop just finished), the first block of the first row (bound in the first row iteration, before
# every read of it), and on the last row only the list's last block, bound in that very iteration.
P = 128


@nki.jit
def kernel(x):
    rows, _, cols = x.shape
    per_row = cols // P
    out = nl.ndarray((rows + 1, P, P), dtype=x.dtype, buffer=nl.shared_hbm)
    buf = [None] * (rows * per_row)
    for r in nl.sequential_range(rows):
        x_tile = nl.load(x[r])
        for b in nl.affine_range(per_row):
            buf[r * per_row + b] = nl.exp(x_tile[:, b * P:(b + 1) * P])
        total = nl.zeros((P, P), dtype=nl.float32, buffer=nl.sbuf)
        for b in range(per_row):
            total = nl.add(total, buf[r * per_row + b])
        nl.store(out[r], value=nl.add(total, buf[0]))
        if r == rows - 1:
            nl.store(out[rows], value=nl.copy(buf[rows * per_row - 1]))
    return out
