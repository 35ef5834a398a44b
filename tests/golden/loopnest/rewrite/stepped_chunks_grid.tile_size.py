# a (128, 4096), b (128, 4096).
# The nest of stepped_chunks.py in the legacy API: `nl.affine_range`-free stepped `range` over
# column offsets, index grids from nl.arange, nl.load / nl.multiply / nl.add / nl.store.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    for c0 in range(0, 4096, 512):
        ta = nl.load(a[i_p, c0 + nl.arange(512)[None, :]])
        tb = nl.load(b[i_p, c0 + nl.arange(512)[None, :]])
        total = nl.add(nl.multiply(ta, tb), ta)
        nl.store(out[i_p, c0 + nl.arange(512)[None, :]], value=total)
    return out
