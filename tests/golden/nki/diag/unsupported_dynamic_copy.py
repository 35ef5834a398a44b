# A documented instruction accelopt does not run is refused by name, at the call, with the reason.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def k(x):
    t = nl.load(x)
    return nisa.tensor_copy_dynamic_src(t)


import numpy as np
k(np.zeros((4, 4), dtype=np.float32))
