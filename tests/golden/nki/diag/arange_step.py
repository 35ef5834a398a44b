# nl.arange has no step argument (nki-language.md 4.2): refused with the way to write a strided index.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a):
    out = nl.ndarray((64, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(0, 128, 2)[:, None]
    i_f = nl.arange(8)[None, :]
    nl.store(out[nl.arange(64)[:, None], i_f], nl.load(a[i_p, i_f]))
    return out


kernel(np.zeros((128, 8), dtype=np.float32))
