import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4):
  # swiglu M=4096 K=1024 N=3072, x (8, 4, 128, 8, 128), w_up (8, 128, 3072), w_down (24, 128, 1024),
  # w_gate (8, 128, 3072). Three loop nests over the 8 blocks of 512 rows, each loading its weights
  # per block and transposing x on the Tensor Engine: gate = x w_gate into an HBM scratch tensor;
  # silu(gate) * (x w_up) into a second HBM scratch tensor; that scratch times w_down.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v5 = nl.ndarray((32, 128, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v7 = nl.ndarray((32, 128, 3072), dtype=np.float32, name='hidden', buffer=nl.hbm)
  v8 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v9 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v9[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v8[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v10 = nisa.memset(shape=(128, 1), value=np.dtype(np.uint16).type(0), dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
  v11 = nl.ndarray((8, 8, par_dim(128), 3072), dtype=np.float32, name='wg_tiles', buffer=nl.sbuf)
  v12 = nl.ndarray((8, 8, par_dim(128), 3072), dtype=np.float32, name='wu_tiles', buffer=nl.sbuf)
  v13 = nl.ndarray((8, 24, par_dim(128), 1024), dtype=np.float32, name='wd_tiles', buffer=nl.sbuf)
  v14 = nl.ndarray((2, 8, 4, par_dim(128), 8, 128), dtype=np.float32, name='rows', buffer=nl.sbuf)
  v15 = nl.zeros((3, 8, 4, 24, par_dim(128), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v16 = nl.ndarray((3, 8, 4, 24, par_dim(128), 128), dtype=np.float32, name='x_t', buffer=nl.sbuf)
  v17 = nl.zeros((3, 8, 4, 6, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v19 = nl.ndarray((8, 4, 6, 7, par_dim(128), 512), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  v20 = nl.ndarray((8, 4, par_dim(128), 3072), dtype=np.float32, name='h_row', buffer=nl.sbuf)
  v21 = nl.ndarray((8, 4, 2, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(8):
    for i1 in nl.affine_range(8):
      v11[i0, i1, nl.arange(128)[:, None], nl.arange(3072)[None, :]] = nl.load(v4[i1, nl.arange(128)[:, None], nl.arange(3072)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i1 '''
    for i7 in nl.affine_range(8):
      v12[i0, i7, nl.arange(128)[:, None], nl.arange(3072)[None, :]] = nl.load(v2[i7, nl.arange(128)[:, None], nl.arange(3072)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i7 '''
    for i2 in nl.affine_range(4):
      v14[0, i0, i2, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[i0, i2, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
      for i3 in nl.affine_range(8):
        v15[0, i0, i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v14[0, i0, i2, nl.arange(128)[:, None], i3, nl.arange(128)[None, :]], v9[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
        v16[0, i0, i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v15[0, i0, i2, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
        ''' end loop i3 '''
      v14[1, i0, i2, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[i0, i2, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
      for i9 in nl.affine_range(8):
        v15[1, i0, i2, i9, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v14[1, i0, i2, nl.arange(128)[:, None], i9, nl.arange(128)[None, :]], v9[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
        v16[1, i0, i2, i9, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v15[1, i0, i2, i9, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
        ''' end loop i9 '''
      for i4 in nl.affine_range(6):
        v18 = nl.ndarray((128, 512), dtype=np.float32, name='g', buffer=nl.sbuf)
        for i5 in nl.affine_range(8):
          v17[0, i0, i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v16[0, i0, i2, i5, nl.arange(128)[:, None], nl.arange(128)[None, :]], v11[i0, i5, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
          ''' end loop i5 '''
        v18[...] = nl.copy(v17[0, i0, i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        for i11 in nl.affine_range(8):
          v17[1, i0, i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v16[1, i0, i2, i11, nl.arange(128)[:, None], nl.arange(128)[None, :]], v12[i0, i11, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
          ''' end loop i11 '''
        v19[i0, i2, i4, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v17[1, i0, i2, i4, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v19[i0, i2, i4, 2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.activation(op=np.exp, data=v18, bias=v10[nl.arange(128)[:, None], 0], scale=-1.0, mask=None, dtype=np.float32)
        v19[i0, i2, i4, 3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v19[i0, i2, i4, 2, nl.arange(128)[:, None], nl.arange(512)[None, :]], op0=np.add, operand0=np.dtype(np.float32).type(1.0), reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
        v19[i0, i2, i4, 4, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.reciprocal(data=v19[i0, i2, i4, 3, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None, dtype=np.float32)
        v19[i0, i2, i4, 5, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.multiply(v18, v19[i0, i2, i4, 4, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None, dtype=np.float32)
        v19[i0, i2, i4, 6, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.multiply(v19[i0, i2, i4, 5, nl.arange(128)[:, None], nl.arange(512)[None, :]], v19[i0, i2, i4, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None, dtype=np.float32)
        nl.store(v7[4*i0 + i2, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], value=v19[i0, i2, i4, 6, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
        ''' end loop i4 '''
      ''' end loop i2 '''
    ''' end loop i0 '''
  for i12 in nl.affine_range(8):
    for i13 in nl.affine_range(24):
      v13[i12, i13, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v3[i13, nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i13 '''
    for i14 in nl.affine_range(4):
      v20[i12, i14, nl.arange(128)[:, None], nl.arange(3072)[None, :]] = nl.load(v7[4*i12 + i14, nl.arange(128)[:, None], nl.arange(3072)[None, :]], dtype=np.float32, mask=None)
      for i15 in nl.affine_range(24):
        v15[2, i12, i14, i15, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v20[i12, i14, nl.arange(128)[:, None], 128*i15 + nl.arange(128)[None, :]], v9[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
        v16[2, i12, i14, i15, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v15[2, i12, i14, i15, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
        ''' end loop i15 '''
      for i16 in nl.affine_range(2):
        for i17 in nl.affine_range(24):
          v17[2, i12, i14, i16, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v16[2, i12, i14, i17, nl.arange(128)[:, None], nl.arange(128)[None, :]], v13[i12, i17, nl.arange(128)[:, None], 512*i16 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
          ''' end loop i17 '''
        v21[i12, i14, i16, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v17[2, i12, i14, i16, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        nl.store(v5[4*i12 + i14, nl.arange(128)[:, None], 512*i16 + nl.arange(512)[None, :]], value=v21[i12, i14, i16, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
        ''' end loop i16 '''
      ''' end loop i14 '''
    ''' end loop i12 '''
  return v5
