# tensor_tensor_scan chained across two tiles through a (P,) initial view, then stored by halves.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=np.float32, buffer=nl.shared_hbm)
    ta = nl.load(a)
    tb = nl.load(b)
    first = nisa.tensor_tensor_scan(ta[:, 0:32], tb[:, 0:32], initial=0, op0=np.multiply, op1=np.add)
    rest = nisa.tensor_tensor_scan(ta[:, 32:64], tb[:, 32:64], initial=first[:, 31], op0=np.multiply, op1=np.add)
    nl.store(out[:, 0:32], first)
    nl.store(out[:, 32:64], rest)
    return out
