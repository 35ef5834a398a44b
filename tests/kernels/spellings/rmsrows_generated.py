import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1):
  # RMS-normalized rows in the tool-generated legacy spelling of the NKIBench baselines: numbered
  # names, every intermediate a block-dim nl.ndarray declared up front, `nl.arange` grids on every
  # access, an integer free index for [128, 1] columns, explicit `mask=None`, `dtype=np.float32`,
  # `engine=nki.isa.unknown_engine`, numpy operator names and `''' end loop '''` strings. Same
  # program as rmsrows_hand.py.
  import numpy as np
  import neuronxcc.nki.language as nl
  v2 = nl.ndarray((8, 128, 512), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v3 = nl.ndarray((8, par_dim(128), 512), dtype=np.float32, name='x_tile', buffer=nl.sbuf)
  v4 = nl.ndarray((8, par_dim(128), 512), dtype=np.float32, name='squares', buffer=nl.sbuf)
  v5 = nl.ndarray((8, par_dim(128), 1), dtype=np.float32, name='total', buffer=nl.sbuf)
  v6 = nl.ndarray((8, par_dim(128), 1), dtype=np.float32, name='inv_rms', buffer=nl.sbuf)
  v7 = nl.ndarray((8, par_dim(128), 512), dtype=np.float32, name='scaled', buffer=nl.sbuf)
  for i0 in nl.affine_range(8):
    v3[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v1[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
    v4[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.activation(op=np.square, data=v3[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], scale=1.0, mask=None, dtype=np.float32)
    v5[i0, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.add, data=v4[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
    v6[i0, nl.arange(128)[:, None], 0] = nisa.activation(op=nl.rsqrt, data=v5[i0, nl.arange(128)[:, None], 0], scale=0.001953125, mask=None, dtype=np.float32)
    v7[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v3[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], op0=np.multiply, operand0=v6[i0, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    nl.store(v2[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], value=v7[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
    ''' end loop i0 '''
  return v2
