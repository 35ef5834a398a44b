# Row softmax times V, legacy API, the probabilities transposed with `nl.transpose` (the
# language-level transpose, whose operand is `x`) block by block for the P @ V matmuls. The
# probabilities are made before the block loop, so pipeline_prep splits it (source=on_chip): all
# transposes first, then all matmuls. Before session 22 only `nisa.nc_transpose(data=...)` and a
# matmul by the identity were seen as transposing a tile made before the loop, and this loop had
# no site.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, v):
    rows, cols = x.shape
    out = nl.ndarray((rows, v.shape[1]), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(rows // 128):
        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])
        row_max = nl.max(x_tile, axis=1, keepdims=True)
        probs = nl.exp(nl.subtract(x_tile, row_max))
        total = nl.sum(probs, axis=1, keepdims=True)
        acc = nl.zeros((128, v.shape[1]), dtype=nl.float32, buffer=nl.psum)
        for b in nl.affine_range(cols // 128):
            p_t = nl.copy(nl.transpose(probs[:, b * 128:(b + 1) * 128]))
            v_tile = nl.load(v[b * 128:(b + 1) * 128, :])
            acc += nl.matmul(p_t, v_tile, transpose_x=True)
        res = nl.multiply(acc, nl.reciprocal(total))
        nl.store(out[m * 128:(m + 1) * 128, :], value=res)
    return out
