# A legacy-API leaky clamp over 300 rows: an nl.mgrid pair, a mask on the ragged last row tile
# (i * 128 + i_p < n), nl.where with a tile condition and a scalar-scaled branch, nl.minimum against
# a scalar, a defaulted slope and cap, and the kernel called through a wrapper.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def leaky_cap(x, slope=0.1, cap=2.0):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:d]
    for i in nl.affine_range((n + 127) // 128):
        rows = i * 128 + i_p
        t = nl.load(x[rows, i_f], mask=(rows < n))
        y = nl.where(t > 0.0, t, nl.multiply(t, slope), mask=(rows < n))
        y = nl.minimum(y, cap, mask=(rows < n))
        nl.store(out[rows, i_f], value=y, mask=(rows < n))
    return out


def kernel(x):
    return leaky_cap(x, slope=0.2)
