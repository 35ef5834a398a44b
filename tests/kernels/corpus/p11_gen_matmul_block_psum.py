import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # decompiled matmul: lhsT [K, M] and rhs [K, N] loaded into full-size block ndarrays once
  # (v4[i2, ...], v5[i2, ...]), a PSUM block per output tile accumulated with `+=` over i2,
  # copied out through an SBUF block; index grids with offsets on every access.
  v3 = nl.ndarray((128, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((2, par_dim(128), 128), dtype=np.float32, name='lhsT', buffer=nl.sbuf)
  v5 = nl.ndarray((2, par_dim(128), 1024), dtype=np.float32, name='rhs', buffer=nl.sbuf)
  v6 = nl.ndarray((2, par_dim(128), 512), dtype=np.float32, name='res_sb', buffer=nl.sbuf)
  ''' begin loop i2 '''
  for i2 in nl.affine_range(2):
    v4[i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v1[128 * i2 + nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32)
    v5[i2, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[128 * i2 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32)
    ''' end loop i2 '''
  ''' begin loop i1 '''
  for i1 in nl.affine_range(2):
    v7 = nl.zeros((par_dim(128), 512), dtype=np.float32, name='res_psum', buffer=nl.psum)
    ''' begin loop i2 '''
    for i2 in nl.affine_range(2):
      v7[nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v4[i2, nl.arange(128)[:, None], nl.arange(128)[None, :]], v5[i2, nl.arange(128)[:, None], 512 * i1 + nl.arange(512)[None, :]])
      ''' end loop i2 '''
    v6[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v7[nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32)
    nl.store(v3[nl.arange(128)[:, None], 512 * i1 + nl.arange(512)[None, :]], value=v6[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]])
    ''' end loop i1 '''
  return v3
