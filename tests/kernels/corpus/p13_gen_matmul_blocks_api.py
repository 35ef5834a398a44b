import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1, v2):
  """decompiled matmul that calls the high-level API: x^T blocks loaded into a full-size
  par_dim block ndarray before the nest, nl.matmul(..., transpose_x=True) on block views indexed
  [i0, ...] with index grids, a PSUM block ndarray made by nl.zeros, and nl.copy(dtype=) out."""
  import neuronxcc.nki.language as nl
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((256, 1024), dtype=np.float32, name='c', buffer=nl.shared_hbm)
  ik = nl.arange(128)[:, None]
  im = nl.arange(128)[None, :]
  jn = nl.arange(512)[None, :]
  v4 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='aT', buffer=nl.sbuf)
  v5 = nl.ndarray((2, par_dim(128), 1024), dtype=np.float32, name='b', buffer=nl.sbuf)
  ''' begin loop i0 '''
  for i0 in nl.affine_range(2):
    ''' begin loop i1 '''
    for i1 in nl.affine_range(2):
      v4[i0, i1, ik, im] = nl.load(v1[128 * i1 + ik, 128 * i0 + im])
      ''' end loop i1 '''
    v5[i0, ik, jn] = nl.load(v2[128 * i0 + ik, jn])
    v5[i0, ik, jn + 512] = nl.load(v2[128 * i0 + ik, jn + 512])
    ''' end loop i0 '''
  ''' begin loop i2 '''
  for i2 in nl.affine_range(2):
    ''' begin loop i3 '''
    for i3 in nl.affine_range(2):
      v6 = nl.zeros((128, 512), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
      ''' begin loop i4 '''
      for i4 in nl.affine_range(2):
        v6[ik, jn] += nl.matmul(v4[i2, i4, ik, im], v5[i4, ik, jn + 512 * i3], transpose_x=True)
        ''' end loop i4 '''
      v7 = nl.copy(v6[ik, jn], dtype=np.float32)
      nl.store(v3[128 * i2 + ik, jn + 512 * i3], value=v7)
      ''' end loop i3 '''
    ''' end loop i2 '''
  return v3
