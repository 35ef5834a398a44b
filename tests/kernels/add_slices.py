# Data movement with slices: load two row tiles, add, store (vertical slice of nl.* APIs).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])
        tb = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(ta, tb))
    return out
