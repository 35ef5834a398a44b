import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(v1):
  # decompiled 1-D max pooling (window 2, stride 2) along the free axis: an nl.mgrid pair built
  # once, strided element offsets `2 * i_f + 1`, a full-size block ndarray of the pooled rows,
  # the row block chosen by `128 * i0 + i_p`, nisa.tensor_tensor with op=np.maximum.
  v2 = nl.ndarray((256, 256), dtype=np.float32, name='pooled', buffer=nl.shared_hbm)
  i_p, i_f = nl.mgrid[0:128, 0:256]
  v3 = nl.ndarray((2, nl.par_dim(128), 256), dtype=np.float32, name='even', buffer=nl.sbuf)
  v4 = nl.ndarray((2, nl.par_dim(128), 256), dtype=np.float32, name='odd', buffer=nl.sbuf)
  v5 = nl.ndarray((2, nl.par_dim(128), 256), dtype=np.float32, name='mx', buffer=nl.sbuf)
  ''' begin loop i0 '''
  for i0 in nl.affine_range(2):
    v3[i0, i_p, i_f] = nl.load(v1[128 * i0 + i_p, 2 * i_f], dtype=np.float32)
    v4[i0, i_p, i_f] = nl.load(v1[128 * i0 + i_p, 2 * i_f + 1], dtype=np.float32)
    v5[i0, i_p, i_f] = nisa.tensor_tensor(data1=v3[i0, i_p, i_f], data2=v4[i0, i_p, i_f], op=np.maximum, dtype=np.float32)
    nl.store(v2[128 * i0 + i_p, i_f], value=v5[i0, i_p, i_f])
    ''' end loop i0 '''
  return v2
