# Legacy-grid style (v1..vN, index grids, block buffers declared up front and indexed by every
# enclosing loop, literal sizes): the nest of bmm_reload_rows_tiles.py, lhs (2, 512, 64), rhs (2,
# 64, 2048); the rhs column block a block of `rhs_cols` per (b, mi, ni), loaded inside `for ni`.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  v3 = nl.ndarray((2, 512, 2048), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((2, 4, 4, par_dim(64), 512), dtype=np.float32, name='rhs_cols', buffer=nl.sbuf)
  v5 = nl.ndarray((2, 4, par_dim(128), 64), dtype=np.float32, name='lhs_tile', buffer=nl.sbuf)
  v6 = nl.zeros((2, 4, par_dim(64), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v7 = nl.ndarray((2, 4, par_dim(64), 128), dtype=np.float32, name='lhs_t', buffer=nl.sbuf)
  v8 = nl.zeros((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='ps', buffer=nl.psum, lazy_initialization=True)
  v9 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    for i1 in nl.affine_range(4):
      v5[i0, i1, nl.arange(128)[:, None], nl.arange(64)[None, :]] = nl.load(v1[i0, 128*i1 + nl.arange(128)[:, None], nl.arange(64)[None, :]], dtype=np.float32, mask=None)
      v6[i0, i1, nl.arange(64)[:, None], nl.arange(128)[None, :]] = nisa.nc_transpose(v5[i0, i1, nl.arange(128)[:, None], nl.arange(64)[None, :]], mask=None)
      v7[i0, i1, nl.arange(64)[:, None], nl.arange(128)[None, :]] = nl.copy(v6[i0, i1, nl.arange(64)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      for i2 in nl.affine_range(4):
        v4[i0, i1, i2, nl.arange(64)[:, None], nl.arange(512)[None, :]] = nl.load(v2[i0, nl.arange(64)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v8[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.nc_matmul(v7[i0, i1, nl.arange(64)[:, None], nl.arange(128)[None, :]], v4[i0, i1, i2, nl.arange(64)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        v9[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v8[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        nl.store(v3[i0, 128*i1 + nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], value=v9[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
        ''' end loop i2 '''
      ''' end loop i1 '''
    ''' end loop i0 '''
  return v3
