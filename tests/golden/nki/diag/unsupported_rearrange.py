# The newer API lists tensor.rearrange / vector_select by name only: refused on access, with why.
import numpy as np
import nki
import nki.language as nl


@nki.jit
def kernel(a):
    out = nl.ndarray((4, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, nl.load(a.rearrange("p f -> p f")))
    return out


kernel(np.zeros((4, 8), dtype=np.float32))
