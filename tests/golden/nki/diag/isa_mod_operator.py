# np.fmod / nl.mod as the operator of an instruction: the ISA operator table (nki-language.md 9.1)
# has no remainder, which the language offers as its APIs nl.mod and nl.fmod (7.3) only. The
# language call nl.mod(x, y) stays valid (the first remainder below runs); the instruction form is
# refused at the call.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def wrap_then_fold(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    w = nl.mod(t, 2.0)
    f = nisa.tensor_scalar(data=w, op0=np.fmod, operand0=0.5)
    nl.store(out, value=f)
    return out


wrap_then_fold(np.ones((128, 64), dtype=np.float32))
