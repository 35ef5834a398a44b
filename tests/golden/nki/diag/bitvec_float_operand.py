# nisa.tensor_tensor with a bitvec operator on float32 tiles: bitvec ops work on raw integer bits
# and need integer dtypes (nki-language.md 8.3), refused rather than computed on float values.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def xor(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nisa.tensor_tensor(nl.load(a), nl.load(b), op=nl.bitwise_xor))
    return out


x = np.ones((128, 4), dtype=np.float32)
xor(x, x)
