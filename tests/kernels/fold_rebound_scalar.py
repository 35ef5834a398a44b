# A name rebound between two scalar steps: out = x * 0.5 + 3.0, x (128, 512). Where the folded
# tensor_scalar lands `factor` is 3.0, so the first step's operand prints as its value (0.5), not
# as the name the author wrote (emit_checked finds the name's value changed there).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    factor = 0.5
    half = nl.multiply(t, factor)
    factor = 3.0
    nl.store(out, value=nl.add(half, factor))
    return out
