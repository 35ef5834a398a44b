# `and` / `or` / `not` on tiles: err_ambiguous_tensor_truth_value (nki-language.md 7.9, 10.2). The
# error used to carry no location (the operand's truth was asked outside a located evaluation); it
# points at the operand now, as an `if` on a tile does.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def in_band(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=(t > 0.0) and (t < 1.0))
    return out


in_band(np.ones((128, 4), dtype=np.float32))
