# A helper returning two tiles from one return statement (`return a * c - b * s, a * s + b * c`),
# called with tiles loaded in its own argument list and its results unpacked by the caller
# (`lo2, hi2 = rotate(lo, hi, nl.load(c[...]), nl.load(s[...]))`), the way a rotary-embedding
# kernel is often written. x (128, 2048), c and s (64, 2048). The loads evaluated as arguments
# become statements named after the tensor they read, and each result of the return
# statement a statement of its own, so the loop's moves (fold_rows, coarsening, engines) apply.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, c, s):
    D, S = x.shape
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)
    x_fold = x.reshape((256, 1024))
    c_fold = c.reshape((128, 1024))
    s_fold = s.reshape((128, 1024))
    out_fold = out.reshape((256, 1024))
    for j in nl.affine_range(2):
        lo = nl.load(x_fold[0:128, 512*j:512*j + 512])
        hi = nl.load(x_fold[128:256, 512*j:512*j + 512])
        c_tile = nl.load(c_fold[:, 512*j:512*j + 512])
        s_tile = nl.load(s_fold[:, 512*j:512*j + 512])
        lo2 = nl.subtract(nl.multiply(lo, c_tile), nl.multiply(hi, s_tile))
        hi2 = nl.add(nl.multiply(lo, s_tile), nl.multiply(hi, c_tile))
        nl.store(out_fold[0:128, 512*j:512*j + 512], value=lo2)
        nl.store(out_fold[128:256, 512*j:512*j + 512], value=hi2)
    return out
