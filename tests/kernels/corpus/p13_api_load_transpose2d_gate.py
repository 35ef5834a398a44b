# nl.load_transpose2d brings each (64, 128) block of x in as (128, 64); a sigmoid gate from the
# second input (loaded the same way) multiplies it, and nl.maximum / nl.minimum clamp the result.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, g):
    R, C = x.shape
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 64):
        for j in nl.affine_range(C // 128):
            xt = nl.load_transpose2d(x[i * 64:(i + 1) * 64, j * 128:(j + 1) * 128])
            gt = nl.load_transpose2d(g[i * 64:(i + 1) * 64, j * 128:(j + 1) * 128])
            y = xt * nl.sigmoid(gt)
            y = nl.minimum(nl.maximum(y, -1.0), 1.0)
            nl.store(out[j * 128:(j + 1) * 128, i * 64:(i + 1) * 64], value=y)
    return out
