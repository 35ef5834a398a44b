# A comparison of index grids as nl.where's condition (a causal mask written `nl.where(ip >= jf,
# t, -30000.0)`): the grids compare to a mask predicate, which is no tile; the error says where a
# predicate goes (mask=, nisa.affine_select).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def causal(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(128)[None, :]
    t = nl.load(x)
    nl.store(out, value=nl.where(ip >= jf, t, -30000.0))
    return out


causal(np.ones((128, 128), dtype=np.float32))
