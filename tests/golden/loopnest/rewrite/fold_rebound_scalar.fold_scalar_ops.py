# A name rebound between two scalar steps: out = x * 0.5 + 3.0, x (128, 512). Where the folded
# tensor_scalar lands `factor` is 3.0, so the first step's operand prints as its value (0.5), not
# as the name the author wrote (emit_checked finds the name's value changed there).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    factor = 0.5
    factor = 3.0
    nl.store(out, value=nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=0.5, op1=nl.add, operand1=3.0))
    return out
