# nl.broadcast_to(x, shape, dtype=) of the newer API converts the broadcast tile (it was ignored).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 4), dtype=nl.int32, buffer=nl.shared_hbm)
    row = nl.load(x)
    wide = nl.broadcast_to(row, shape=(128, 4), dtype=nl.int32)
    print(wide.dtype, wide.shape)
    same = nl.broadcast_to(row, shape=(128, 4))
    print(same.dtype, same.shape)
    nl.store(out, value=wide)
    return out


print(kernel(np.full((128, 1), 2.75, dtype=np.float32))[:2])
