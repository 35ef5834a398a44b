# Generated-kernel style: block-dim SBUF tensor, arange indexing, a ragged last tile guarded by
# masks (loads past the end of the 200-row input are masked off), two-op tensor_scalar.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1):
    v3 = nl.ndarray((200, 64), dtype=np.float32, buffer=nl.shared_hbm)
    v4 = nl.ndarray((2, par_dim(128), 64), dtype=np.float32, name='x', buffer=nl.sbuf)
    for i0 in nl.affine_range(2):
        v4[i0, nl.arange(128)[:, None], nl.arange(64)[None, :]] = nl.load(v1[128 * i0 + nl.arange(128)[:, None], nl.arange(64)[None, :]], dtype=np.float32, mask=(128 * i0 + nl.arange(128)[:, None] < 200))
        t = nisa.tensor_scalar(data=v4[i0, nl.arange(128)[:, None], nl.arange(64)[None, :]], op0=nl.multiply, operand0=np.dtype(np.float32).type(0.5), reverse0=True, op1=np.add, operand1=1.0, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
        nl.store(v3[128 * i0 + nl.arange(128)[:, None], nl.arange(64)[None, :]], value=t, mask=(-128 * i0 - nl.arange(128)[:, None] + 199 >= 0))
        ' end loop i0 '
    return v3
