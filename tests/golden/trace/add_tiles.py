# Two row tiles: loads, a Vector add written through nl.store, loop records.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

INPUT_SHAPES = [(256, 512), (256, 512)]


@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])
        tb = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(ta, tb))
    return out
