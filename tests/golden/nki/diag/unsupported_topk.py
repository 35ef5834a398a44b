import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def k(x):
    t = nl.load(x)
    return nisa.topk(t, k=8)


k(np.zeros((4, 16), dtype=np.float32))
