# The newer nki API's tensor_copy on the Scalar Engine of NeuronCore-v2: "not on Scalar Engine for v2
# (use activation(op=nl.copy))" (nki-language.md 12.2). `accelopt run` traces for NeuronCore-v2
# (trn1), where it is refused; left to the compiler (engine unknown) the copy runs on VectorE.
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def copy_rows(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    u = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=u, src=t, engine=nisa.scalar_engine)
    nisa.dma_copy(dst=out, src=u)
    return out


copy_rows(np.zeros((128, 8), dtype=np.float32))
