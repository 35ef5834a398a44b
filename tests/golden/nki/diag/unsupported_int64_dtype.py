# nl.int64 exists for the newer API's scalar registers; a tile of it is refused where the dtype is used.
import numpy as np
import nki
import nki.language as nl


@nki.jit
def k(x):
    t = nl.copy(nl.load(x), dtype=nl.int64)
    out = nl.ndarray(x.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    nl.store(out, t)
    return out


k(np.zeros((4, 4), dtype=np.int32))
