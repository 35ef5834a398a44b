# A helper returning two tiles from one return statement (`return a * c - b * s, a * s + b * c`),
# called with tiles loaded in its own argument list and its results unpacked by the caller
# (`lo2, hi2 = rotate(lo, hi, nl.load(c[...]), nl.load(s[...]))`), the way a rotary-embedding
# kernel is often written. x (128, 2048), c and s (64, 2048). The loads evaluated as arguments
# become statements named after the tensor they read, and each result of the return
# statement a statement of its own, so the loop's moves (fold_rows, coarsening, engines) apply.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def rotate(a, b, c, s):
    return nl.subtract(nl.multiply(a, c), nl.multiply(b, s)), nl.add(nl.multiply(a, s), nl.multiply(b, c))


@nki.jit
def kernel(x, c, s):
    D, S = x.shape
    H = D // 2
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(S // 512):
        cols = nl.ds(j * 512, 512)
        lo = nl.load(x[0:H, cols])
        hi = nl.load(x[H:D, cols])
        lo2, hi2 = rotate(lo, hi, nl.load(c[:, cols]), nl.load(s[:, cols]))
        nl.store(out[0:H, cols], value=lo2)
        nl.store(out[H:D, cols], value=hi2)
    return out
