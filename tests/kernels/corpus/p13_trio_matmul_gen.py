import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1, v2):
  # p13_trio_matmul_isa's program as a decompiler prints it: names v1..vN, an import in the body,
  # loop markers, index grids offset per iteration, nl.matmul(transpose_x=True) into a view.
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((256, 1024), dtype=np.float32, name='c', buffer=nl.shared_hbm)
  ik = nl.arange(128)[:, None]
  im = nl.arange(128)[None, :]
  jn = nl.arange(512)[None, :]
  ''' begin loop i0 '''
  for i0 in nl.affine_range(2):
    ''' begin loop i1 '''
    for i1 in nl.affine_range(2):
      v4 = nl.zeros((par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum)
      ''' begin loop i2 '''
      for i2 in nl.affine_range(2):
        v5 = nl.load(v1[128 * i2 + ik, 128 * i0 + im])
        v6 = nl.load(v2[128 * i2 + ik, 512 * i1 + jn])
        v4[ik, jn] += nl.matmul(v5[ik, im], v6[ik, jn], transpose_x=True)
        ''' end loop i2 '''
      v7 = nl.copy(v4[ik, jn], dtype=np.float32)
      nl.store(v3[128 * i0 + ik, 512 * i1 + jn], value=v7[ik, jn])
      ''' end loop i1 '''
    ''' end loop i0 '''
  return v3
