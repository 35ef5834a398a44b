# Legacy-grid style (v1..vN, index grids, block buffers declared up front and indexed by every
# enclosing loop, literal sizes): the nest of transpose_scale_tiles.py, x (256, 256),
# w (2, 128, 1024), g (256, 1).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3):
  v4 = nl.ndarray((256, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v5 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v6 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v6[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v5[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v7 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='g_cols', buffer=nl.sbuf)
  v8 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='xt', buffer=nl.sbuf)
  v9 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='sq', buffer=nl.sbuf)
  v10 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='ss', buffer=nl.sbuf)
  v11 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='rs', buffer=nl.sbuf)
  v12 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='xn', buffer=nl.sbuf)
  v13 = nl.zeros((2, 2, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v14 = nl.ndarray((2, 2, 2, par_dim(128), 512), dtype=np.float32, name='wt', buffer=nl.sbuf)
  v18 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v7[i0, nl.arange(128)[:, None], 0] = nl.load(v3[128*i0 + nl.arange(128)[:, None], 0], dtype=np.float32, mask=None)
    ''' end loop i0 '''
  for i1 in nl.affine_range(2):
    v8[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.load(v1[128*i1 + nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
    v9[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.activation(op=np.square, data=v8[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]], scale=1.0, mask=None, dtype=np.float32)
    v10[i1, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.add, data=v9[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
    v11[i1, nl.arange(128)[:, None], 0] = nisa.activation(op=nl.rsqrt, data=v10[i1, nl.arange(128)[:, None], 0], scale=0.00390625, mask=None, dtype=np.float32)
    v12[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.tensor_scalar(data=v8[i1, nl.arange(128)[:, None], nl.arange(256)[None, :]], op0=np.multiply, operand0=v11[i1, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    v12_t = nl.ndarray(shape=(2, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
    for i3 in nl.affine_range(2):
      v15 = nl.zeros((128, 128), dtype=np.float32, name='tp', buffer=nl.psum, lazy_initialization=True)
      v16 = nl.ndarray((128, 128), dtype=np.float32, name='xT', buffer=nl.sbuf)
      v15[...] = nisa.nc_matmul(v12[i1, nl.arange(128)[:, None], 128*i3 + nl.arange(128)[None, :]], v6[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
      v16[...] = nl.copy(v15, dtype=np.float32, mask=None)
      v12_t[i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.tensor_scalar(data=v16, op0=np.multiply, operand0=v7[i3, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    for i2 in nl.affine_range(2):
      for i3 in nl.affine_range(2):
        v14[i1, i2, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[i3, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v13[i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v12_t[i3, nl.arange(128)[:, None], nl.arange(128)[None, :]], v14[i1, i2, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i3 '''
      v18[i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v13[i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      nl.store(v4[128*i1 + nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], value=v18[i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
      ''' end loop i2 '''
    ''' end loop i1 '''
  return v4
