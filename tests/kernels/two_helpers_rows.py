# Legacy API: each row block is loaded by one helper and transformed by another (exp, then a scale),
# every call returning its tile. A move inside `_scaled_exp` (helpers=open) prints that helper opened
# and leaves `_load_rows` the call the author wrote (reclose_calls.cpp). x (256, 512).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

ROWS = 128


def _load_rows(src, r):
    return nl.load(src[r * ROWS:(r + 1) * ROWS, :])


def _scaled_exp(t):
    return nl.multiply(nl.exp(t), 0.5)


@nki.jit
def kernel(x):
    R, F = x.shape
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // ROWS):
        t = _load_rows(x, r)
        y = _scaled_exp(t)
        nl.store(out[r * ROWS:(r + 1) * ROWS, :], value=y)
    return out
