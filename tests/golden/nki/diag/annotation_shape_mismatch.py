# A local's `nt.tensor[...]` annotation is checked against the value's shape when the kernel is
# traced (err_annotation_shape_mismatch); annotations that are no tensor shape are left alone.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt


@nki.jit
def scale_rows(x: nt.tensor):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n: int = 2
    t: nt.tensor[128, 64] = nl.load(x[0:128, :])
    u: nt.tensor[128, 32] = nl.multiply(t, 2.0)
    nl.store(out, value=u)
    return out


scale_rows(np.ones((128, 64), dtype=np.float32))
