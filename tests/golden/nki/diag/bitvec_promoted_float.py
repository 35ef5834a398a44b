# A shift of a uint32 tile by a bare Python int: the int is weakly typed int32, uint32 with int32
# promotes to float32 (nki-language.md 3.8), and a bitvec operation needs integer dtypes (8.3).
# Refused at the call, never computed through float32 (which rounds the bits).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def shift(keys):
    out = nl.ndarray(keys.shape, dtype=nl.uint32, buffer=nl.shared_hbm)
    h = nl.load(keys)
    nl.store(out, value=h << 13)
    return out


shift(np.arange(128 * 4, dtype=np.uint32).reshape(128, 4))
