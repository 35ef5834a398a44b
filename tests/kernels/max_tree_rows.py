# Row maxima as a GPU programmer writes a shared-memory tree: a trace-time Python `while` halves the
# row, rebinding one tile name (`m = nl.maximum(m[:, 0:w], m[:, w:2 * w])`), then one reduce of what
# is left; the rows are then shifted by their maximum and exponentiated. The while unrolls while
# tracing (an Inline node of the form); opened, its last copy keeps the kernel's name `m`, so the
# reduce after it, printed as written, still reads the last one.
# Input: x (256, 1024).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        m = nl.copy(t)
        w = cols // 2
        while w >= 128:
            m = nl.maximum(m[:, 0:w], m[:, w:2 * w])
            w = w // 2
        top = nl.max(m, axis=1, keepdims=True)
        e = nl.exp(nl.subtract(t, top))
        nl.store(out[r * 128:(r + 1) * 128, :], value=e)
    return out
