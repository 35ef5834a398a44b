# Rows walked in blocks of 64 partitions, as a GPU port sizes its thread blocks:
# out[r, :] = sum_s exp(x[r, :] * a[r, s]) * g[s, :].  x (256, 512), a (256, 4), g (4, 512).
# tile_size coarsens the block loop onto 128 partitions (rows=1): the accumulator declared in the
# loop, the per-row scale column and the broadcast of g's row grow with it; the instructions stay
# as many, each on twice the partitions.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

ROWS = 128


@nki.jit
def kernel(x, a, g):
    R, C = x.shape
    S = a.shape[1]
    out = nl.ndarray((R, C), dtype=nl.float32, buffer=nl.shared_hbm)
    for blk in nl.affine_range(R // ROWS):
        first = blk * ROWS
        x_t = nl.load(x[nl.ds(first, ROWS), :])
        a_t = nl.load(a[nl.ds(first, ROWS), :])
        total = nl.zeros((ROWS, C), dtype=nl.float32)
        for s in nl.sequential_range(S):
            g_row = nl.load(g[nl.ds(s, 1), :])
            g_all = g_row.broadcast_to((ROWS, C))
            e = nisa.activation(op=nl.exp, data=x_t, scale=a_t[:, s])
            total[...] = nl.add(total, nl.multiply(e, g_all))
        nl.store(out[nl.ds(first, ROWS), :], value=total)
    return out
