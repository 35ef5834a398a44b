# A fast path chosen by the shapes that returns early; the general path after it is written for
# wider rows (its 512-column blocks do not fit these inputs) and never runs for them.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    if cols <= 256:
        for r in nl.affine_range(rows // 128):
            t = nl.load(x[r * 128:(r + 1) * 128, :])
            nl.store(out[r * 128:(r + 1) * 128, :], value=nl.multiply(nl.exp(t), 0.5))
        return out
    block = 512
    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // block):
            t = nl.load(x[r * 128:(r + 1) * 128, c * block:(c + 1) * block])
            nl.store(out[r * 128:(r + 1) * 128, c * block:(c + 1) * block], value=nl.multiply(nl.exp(t), 0.5))
    return out
