# inputs: 128x512
# A chain written in nl.* math, as tutorial-style authors write it: the scale of the square root
# is a separate multiply on the Vector Engine until fold_scale moves it into the activation.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def rms_scale(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    root = nisa.activation(op=nl.sqrt, data=nl.square(t), scale=1000.0)
    nl.store(out, value=nl.add(root, 1e-8))
    return out
