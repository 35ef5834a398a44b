# silu as the built-in agent leaves it after fold_silu and a coarsened inner loop: a row-sized view
# `xs` of the loaded tile bound inside a loop over halves of the row (chunk_rows must write the
# view out when the rows shrink).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    parts, rows, cols = x.shape
    out = nl.ndarray((parts, rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    block = 1024
    for r in nl.affine_range(rows):
        for c in nl.affine_range(cols // block):
            x_tile = nl.load(x[:, r, c * block:(c + 1) * block])
            res = nl.ndarray((nl.par_dim(parts), block), dtype=x.dtype, buffer=nl.sbuf)
            for h in nl.affine_range(1):
                xs = x_tile[:, 1024 * h:1024 * h + 1024]
                res[:, 1024 * h:1024 * h + 1024] = nl.silu(x=xs)
            nl.store(out[:, r, c * block:(c + 1) * block], value=res)
    return out
