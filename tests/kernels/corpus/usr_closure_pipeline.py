# Tile work composed from closures: module-level factories return inner functions capturing their
# arguments, `compose(*fns)` applies a tuple of them in order with a host loop, a lambda and an nl
# function are composed too, and a closure inside the kernel captures the loop variable of the
# enclosing loop (each call sees the current iteration's value).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def affine(scale, shift):
    def apply(t):
        return nl.add(nl.multiply(t, scale), shift)
    return apply


def compose(*fns):
    def run(t):
        for f in fns:
            t = f(t)
        return t
    return run


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    post = compose(affine(2.0, 1.0), nl.tanh, lambda t: nl.maximum(t, 0.0), affine(0.5, 0.0))
    for i in nl.affine_range(M // 128):
        def rows():
            return slice(i * 128, (i + 1) * 128)

        t = nl.load(x[rows(), :])
        nl.store(out[rows(), :], value=post(t))
    return out
