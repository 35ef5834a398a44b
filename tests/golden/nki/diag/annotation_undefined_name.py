# A parameter annotation is evaluated when the def runs, as in Python: `nt` used without its
# import is a NameError at the annotation, not a silently accepted kernel.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def sgd_step(w: nt.mutable_tensor, g):
    nl.store(w, nl.subtract(nl.load(w), nl.load(g)))
    return w


sgd_step(np.ones((4, 4), dtype=np.float32), np.ones((4, 4), dtype=np.float32))
