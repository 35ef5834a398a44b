# Higher-order host Python around the tile work: functools.partial binds the dtype of an nl
# function, a lambda wraps a composite (x * sigmoid(x)), a list of callables is applied in order
# with functools.reduce, and a decorator written by the user (keeping the function's name with
# functools.wraps) wraps the helper that computes a tile.
import functools
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def tile_op(fn):
    @functools.wraps(fn)
    def wrapper(t, *args, **kwargs):
        return fn(t, *args, **kwargs)
    return wrapper


@tile_op
def gated(t, gate):
    return nl.multiply(t, nl.sigmoid(gate))


@nki.jit
def kernel(x, g):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    mul32 = functools.partial(nl.multiply, dtype=nl.float32)
    swish = lambda v: mul32(v, nl.sigmoid(v))
    chain = [swish, lambda v: nl.add(v, 0.5), functools.partial(nl.maximum, y=0.0)]
    for r in nl.affine_range(M // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        gt = nl.load(g[r * 128:(r + 1) * 128, :])
        y = functools.reduce(lambda acc, f: f(acc), chain, t)
        nl.store(out[r * 128:(r + 1) * 128, :], value=gated(y, gt))
    return out
