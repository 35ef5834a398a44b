# An elementwise chain configured by data, as a user library writes it: the steps are a tuple of
# (name, constant) pairs looked up in a dict of nl functions at trace time, a dict with string
# keys holds the tile sizes, `**options` are forwarded to every call, and the chain runs over
# the row tiles with enumerate() and zip() over host lists.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

OPS = {"scale": nl.multiply, "shift": nl.add, "floor": nl.maximum, "cap": nl.minimum}
CONFIG = {"rows": 128, "cols": 512}
STEPS = (("scale", 1.5), ("shift", -0.25), ("floor", -1.0), ("cap", 2.0))


def apply_chain(t, steps, **options):
    for name, constant in steps:
        t = OPS[name](t, constant, **options)
    return t


@nki.jit
def kernel(x):
    M, N = x.shape
    rows, cols = CONFIG["rows"], CONFIG["cols"]
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    starts = [r * rows for r in range(M // rows)]
    for idx, (r0, tag) in enumerate(zip(starts, ["first"] + ["rest"] * (len(starts) - 1))):
        for c in nl.affine_range(N // cols):
            t = nl.load(x[r0:r0 + rows, c * cols:(c + 1) * cols])
            y = apply_chain(t, STEPS, dtype=nl.float32)
            if tag == "first":
                y = nl.multiply(y, 2.0)
            nl.store(out[r0:r0 + rows, c * cols:(c + 1) * cols], value=y)
    return out
