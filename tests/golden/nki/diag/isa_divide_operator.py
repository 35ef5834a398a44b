# nl.divide as the operator of an instruction: "nl.divide exists as a language API but is not in
# the ISA operator table" (nki-language.md 9.1), so the compiler does not take it in op0=/op1=/op=
# of nisa.tensor_scalar / tensor_tensor / scalar_tensor_tensor. The language call nl.divide(x, y)
# stays valid (the first division below runs); the instruction form is refused at the call.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def halve_then_invert(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    h = nl.divide(t, 2.0)
    inv = nisa.tensor_scalar(data=h, op0=nl.add, operand0=1.0, op1=nl.divide, operand1=1.0, reverse1=True)
    nl.store(out, value=inv)
    return out


halve_then_invert(np.ones((128, 64), dtype=np.float32))
