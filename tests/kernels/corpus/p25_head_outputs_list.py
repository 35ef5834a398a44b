# One output per head held in a Python list made by a comprehension, written by a `range` loop over
# the heads inside the row loop (`outs[h]`, `scales[h]`), returned as a tuple: a list indexed by the
# variable of a loop the trace unrolls.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

HEADS = 3


@nki.jit
def split_heads(x):
    n, hd = x.shape
    d = hd // HEADS
    outs = [nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm) for _ in range(HEADS)]
    scales = [1.0, 0.5, 0.25]
    for r in nl.affine_range(n // 128):
        for h in range(HEADS):
            t = nl.load(x[r * 128:(r + 1) * 128, h * d:(h + 1) * d])
            nl.store(outs[h][r * 128:(r + 1) * 128, :], value=nl.multiply(nl.tanh(t), scales[h]))
    return tuple(outs)
