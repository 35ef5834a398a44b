import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(v1, v2):
  # decompiled: full-size index grids built once (ip, jf) and offset per block (`jf + 512 * i1`),
  # one full-size block ndarray per stage allocated before the nest and indexed [i0, i1, ...],
  # an import inside the body, ''' begin/end loop ''' markers, nl.par_dim shapes.
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((256, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  ip = nl.arange(128)[:, None]
  jf = nl.arange(512)[None, :]
  j1 = nl.arange(1)[None, :]
  v4 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='x_blk', buffer=nl.sbuf)
  v5 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='sig_blk', buffer=nl.sbuf)
  v6 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='y_blk', buffer=nl.sbuf)
  v7 = nl.ndarray((par_dim(128), 1), dtype=np.float32, name='bias', buffer=nl.sbuf)
  v7[ip, j1] = nl.load(v2[ip, j1], dtype=np.float32)
  ''' begin loop i0 '''
  for i0 in nl.affine_range(2):
    ''' begin loop i1 '''
    for i1 in nl.affine_range(2):
      v4[i0, i1, ip, jf] = nl.load(v1[128 * i0 + ip, jf + 512 * i1], dtype=np.float32)
      v5[i0, i1, ip, jf] = nisa.activation(op=nl.sigmoid, data=v4[i0, i1, ip, jf], bias=v7[ip, j1], scale=1.0, dtype=np.float32)
      v6[i0, i1, ip, jf] = nl.multiply(v4[i0, i1, ip, jf], v5[i0, i1, ip, jf], dtype=np.float32)
      nl.store(v3[128 * i0 + ip, jf + 512 * i1], value=v6[i0, i1, ip, jf])
      ''' end loop i1 '''
    ''' end loop i0 '''
  return v3
