import functools

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

# Library style (issue 13): one element-wise driver walks the row and column tiles of its 2-D
# operands and applies the per-tile math it is handed as a callable: a module function, a lambda,
# a functools.partial of a function with a keyword. The driver loads its operands with a
# comprehension over the list of sources. x, y (256, 1024).
P = 128
W = 512


def _for_tiles(fn, dst, srcs):
    rows, cols = dst.shape
    for r in nl.affine_range(rows // P):
        for c in nl.affine_range(cols // W):
            ins = [nl.load(s[r * P:(r + 1) * P, c * W:(c + 1) * W]) for s in srcs]
            res = fn(*ins)
            nl.store(dst[r * P:(r + 1) * P, c * W:(c + 1) * W], value=res)


def _gated(t):
    g = nisa.activation(op=nl.sigmoid, data=t)
    return nl.multiply(t, g)


def _scaled_sum(a, b, *, scale):
    return nl.add(nl.multiply(a, scale), b)


@nki.jit
def kernel(x, y):
    h = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    s = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    _for_tiles(_gated, h, [x])
    _for_tiles(functools.partial(_scaled_sum, scale=0.5), s, [h, y])
    _for_tiles(lambda a, b: nl.subtract(a, b), out, [s, x])
    return out
