# Legacy-grid style (v1..vN, index grids, block buffers declared up front and indexed by every
# enclosing loop, literal sizes): the nest of reload_matmul_tiles.py, x (256, 256), w (2, 128, 1024).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  v3 = nl.ndarray((256, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='xt', buffer=nl.sbuf)
  v5 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='sq', buffer=nl.sbuf)
  v6 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='ss', buffer=nl.sbuf)
  v7 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='rs', buffer=nl.sbuf)
  v8 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='xn', buffer=nl.sbuf)
  v9 = nl.zeros((2, 2, par_dim(128), 128), dtype=np.float32, name='tp', buffer=nl.psum, lazy_initialization=True)
  v10 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='xT', buffer=nl.sbuf)
  v11 = nl.zeros((2, 2, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v12 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='wt', buffer=nl.sbuf)
  v13 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i2 in nl.affine_range(2):
    for i3 in nl.affine_range(2):
      v12[i2, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[i3, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
  for i0 in nl.affine_range(2):
    v4[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
    v5[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.multiply(v4[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], v4[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
    v6[i0, nl.arange(128)[:, None], 0] = nl.sum(v5[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], axis=[1], dtype=np.float32, mask=None, keepdims=True)
    v7[i0, nl.arange(128)[:, None], 0] = nl.rsqrt(nl.multiply(v6[i0, nl.arange(128)[:, None], 0], 0.00390625, dtype=np.float32, mask=None), dtype=np.float32, mask=None)
    v8[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.multiply(v4[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], v7[i0, nl.arange(128)[:, None], 0], dtype=np.float32, mask=None)
    for i1 in nl.affine_range(2):
      v9[i0, i1, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_transpose(v8[i0, nl.arange(128)[:, None], 128*i1 + nl.arange(128)[None, :]], mask=None)
      v10[i0, i1, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v9[i0, i1, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i1 '''
    for i2 in nl.affine_range(2):
      for i3 in nl.affine_range(2):
        v11[i0, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v10[i0, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]], v12[i2, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i3 '''
      v13[i0, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v11[i0, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      nl.store(v3[128*i0 + nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], value=v13[i0, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
      ''' end loop i2 '''
    ''' end loop i0 '''
  return v3
