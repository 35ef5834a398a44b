# Legacy nl API: a flattened (batch, row tile) loop run one tile ahead through a closure. The helper
# splits its argument into the batch and the row tile (`t = i % n_rt`), and loads the batch's scale
# tile into a rotating buffer only at the batch's first row tile (`if t == 0:`), a condition on a host
# value the helper bound from the loop variable, not on the variable itself.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

NB = 2


@nki.jit
def kernel(x, s):
    B, M, F = x.shape
    n_rt = M // 128
    n_tiles = B * n_rt
    out = nl.ndarray((B, M, F), dtype=x.dtype, buffer=nl.shared_hbm)
    s_sb = nl.ndarray((NB, nl.par_dim(128), F), dtype=nl.float32, buffer=nl.sbuf)
    x_sb = nl.ndarray((NB, nl.par_dim(128), F), dtype=nl.float32, buffer=nl.sbuf)

    def fetch(i):
        bi = i // n_rt
        t = i % n_rt
        if t == 0:
            s_sb[bi % NB] = nl.load(s[bi])
        x_sb[i % NB] = nl.load(x[bi, t * 128:(t + 1) * 128, :])

    def scale(i):
        bi = i // n_rt
        t = i % n_rt
        y = nl.multiply(x_sb[i % NB], s_sb[bi % NB])
        nl.store(out[bi, t * 128:(t + 1) * 128, :], value=y)

    fetch(0)
    for i in nl.sequential_range(n_tiles):
        if i + 1 < n_tiles:
            fetch(i + 1)
        scale(i)
    return out
