# Legacy-grid style: a softmax over row tiles in two loop nests (row maxima first, then exp, row
# sums, normalization), every tile a block of a buffer declared up front and indexed by the loop
# variables (v5[i0, i1]), the row sums accumulated into a zeroed block. Fusing the two nests, per
# row tile or in blocks of row tiles, contracts the buffers the fused loop uses one block at a
# time into per-iteration tiles; each site must keep the result (staged_softmax_tiles.py is the
# same nest with per-iteration tiles).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(v1):
  v2 = nl.ndarray((2, 4, 128, 256), dtype=np.float32, buffer=nl.shared_hbm)
  v3 = nl.ndarray((2, 4, nl.par_dim(128), 256), dtype=np.float32, buffer=nl.sbuf)
  v4 = nl.ndarray((2, 4, nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf)
  v5 = nl.ndarray((2, 4, nl.par_dim(128), 256), dtype=np.float32, buffer=nl.sbuf)
  v6 = nl.zeros((2, 4, nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf)
  v7 = nl.ndarray((2, 4, nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf)
  v8 = nl.ndarray((2, 4, nl.par_dim(128), 256), dtype=np.float32, buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    for i1 in nl.affine_range(4):
      v3[i0, i1, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.load(v1[i0, 128*i1 + nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
      v4[i0, i1, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.max, data=v3[i0, i1, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=True)
      ''' end loop i1 '''
    for i2 in nl.affine_range(4):
      v5[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.activation(op=np.exp, data=v3[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], bias=v4[i0, i2, nl.arange(128)[:, None], 0], scale=1.0, mask=None, dtype=np.float32)
      v6[i0, i2, nl.arange(128)[:, None], 0] += nisa.tensor_reduce(np.add, data=v5[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
      v7[i0, i2, nl.arange(128)[:, None], 0] = nisa.reciprocal(data=v6[i0, i2, nl.arange(128)[:, None], 0], mask=None, dtype=np.float32)
      v8[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.tensor_scalar(data=v5[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], op0=np.multiply, operand0=v7[i0, i2, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None)
      nl.store(v2[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], value=v8[i0, i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None)
      ''' end loop i2 '''
    ''' end loop i0 '''
  return v2
