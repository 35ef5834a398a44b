# Legacy-grid style (v1..vN, index grids, block buffers declared up front, literal sizes): the
# rmsnorm_matmul nest at a small size (x (2, 128, 256), w (2, 128, 512)). The scaled rows go through
# a private HBM scratch tensor between the two nests; forward_scratch must find the same site here,
# in scratch_rows_tiles.py and in scratch_rows_api.py (the same nest in two other styles), and keep
# the result.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # rmsnorm_matmul at M=256 K=256 N=512 (x (2, 128, 256), w (2, 128, 512)).
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((2, 128, 512), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((2, 128, 256), dtype=np.float32, name='x_norm', buffer=nl.hbm)
  v5 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v6 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v6[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v5[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v7 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='x_tile', buffer=nl.sbuf)
  v8 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='squares', buffer=nl.sbuf)
  v9 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='total', buffer=nl.sbuf)
  v10 = nl.ndarray((2, par_dim(128), 1), dtype=np.float32, name='inv_rms', buffer=nl.sbuf)
  v11 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='x_scaled', buffer=nl.sbuf)
  v12 = nl.ndarray((2, par_dim(128), 512), dtype=np.float32, name='w_tiles', buffer=nl.sbuf)
  v13 = nl.ndarray((2, par_dim(128), 256), dtype=np.float32, name='x_row', buffer=nl.sbuf)
  v14 = nl.zeros((2, 2, par_dim(128), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v15 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='x_t', buffer=nl.sbuf)
  v16 = nl.zeros((2, 1, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v17 = nl.ndarray((2, 1, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v7[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.load(v1[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
    v8[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.activation(op=np.square, data=v7[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], scale=1.0, mask=None, dtype=np.float32)
    v9[i0, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.add, data=v8[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
    v10[i0, nl.arange(128)[:, None], 0] = nisa.activation(op=nl.rsqrt, data=v9[i0, nl.arange(128)[:, None], 0], scale=0.00390625, mask=None, dtype=np.float32)
    v11[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nisa.tensor_scalar(data=v7[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], op0=np.multiply, operand0=v10[i0, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    nl.store(v4[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], value=v11[i0, nl.arange(128)[:, None], nl.arange(256)[None, :]], mask=None)
    ''' end loop i0 '''
  for i1 in nl.affine_range(2):
    v12[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
    ''' end loop i1 '''
  for i2 in nl.affine_range(2):
    v13[i2, nl.arange(128)[:, None], nl.arange(256)[None, :]] = nl.load(v4[i2, nl.arange(128)[:, None], nl.arange(256)[None, :]], dtype=np.float32, mask=None)
    for i3 in nl.affine_range(2):
      v14[i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v13[i2, nl.arange(128)[:, None], 128*i3 + nl.arange(128)[None, :]], v6[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
      v15[i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v14[i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i3 '''
    for i4 in nl.affine_range(1):
      for i5 in nl.affine_range(2):
        v16[i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v15[i2, i5, nl.arange(128)[:, None], nl.arange(128)[None, :]], v12[i5, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i5 '''
      v17[i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v16[i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      nl.store(v3[i2, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], value=v17[i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
      ''' end loop i4 '''
    ''' end loop i2 '''
  return v3
