# np.divide as the op of nisa.tensor_tensor: no ISA operator (nki-language.md 9.1), refused at the
# call whatever the spelling of the operator (the numpy ufunc here).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def ratio(a, b):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.load(a)
    tb = nl.load(b)
    nl.store(out, value=nisa.tensor_tensor(ta, tb, np.divide))
    return out


ratio(np.ones((128, 32), dtype=np.float32), np.full((128, 32), 2.0, dtype=np.float32))
