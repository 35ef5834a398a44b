import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4):
  # lora M=4096 N=12288 K=5120 R=128, x (8, 4, 128, 40, 128), w (40, 128, 12288), a (40, 128, 128),
  # b (128, 12288). First nest: (x a)^T = a^T x^T per row tile (x rows loaded in chunks of 8 K
  # tiles and transposed on the Tensor Engine). Second nest: per 1024-column block, the 40 w tiles
  # and the b block are loaded; every row tile is re-loaded and re-transposed, each 512-column half
  # accumulates 40 matmuls of x w and the low-rank (x a) b term in one PSUM tile.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v5 = nl.ndarray((8, 4, 128, 96, 128), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v6 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v7 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v7[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v6[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v8 = nl.ndarray((40, par_dim(128), 128), dtype=np.float32, name='a_tiles', buffer=nl.sbuf)
  v9 = nl.ndarray((32, par_dim(128), 128), dtype=np.float32, name='xa_t', buffer=nl.sbuf)
  v10 = nl.ndarray((8, 4, 5, par_dim(128), 8, 128), dtype=np.float32, name='rows', buffer=nl.sbuf)
  v11 = nl.zeros((8, 4, 40, par_dim(128), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v12 = nl.ndarray((8, 4, 40, par_dim(128), 128), dtype=np.float32, name='x_t', buffer=nl.sbuf)
  v13 = nl.zeros((8, 4, par_dim(128), 128), dtype=np.float32, name='xa_psum', buffer=nl.psum, lazy_initialization=True)
  v14 = nl.ndarray((12, 40, par_dim(128), 1024), dtype=np.float32, name='w_tiles', buffer=nl.sbuf)
  v15 = nl.ndarray((12, par_dim(128), 1024), dtype=np.float32, name='b_tile', buffer=nl.sbuf)
  v16 = nl.ndarray((12, 8, 4, 5, par_dim(128), 8, 128), dtype=np.float32, name='rows', buffer=nl.sbuf)
  v17 = nl.zeros((12, 8, 4, 40, par_dim(128), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v18 = nl.ndarray((12, 8, 4, 40, par_dim(128), 128), dtype=np.float32, name='x_t', buffer=nl.sbuf)
  v19 = nl.zeros((12, 8, 4, 2, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v20 = nl.ndarray((12, 8, 4, par_dim(128), 1024), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(40):
    v8[i0, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v3[i0, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
    ''' end loop i0 '''
  for i1 in nl.affine_range(8):
    for i2 in nl.affine_range(4):
      for i3 in nl.affine_range(5):
        v10[i1, i2, i3, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[i1, i2, nl.arange(128)[:, None, None], 8*i3 + nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
        for i4 in nl.affine_range(8):
          v11[i1, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v10[i1, i2, i3, nl.arange(128)[:, None], i4, nl.arange(128)[None, :]], v7[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
          v12[i1, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v11[i1, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
          ''' end loop i4 '''
        ''' end loop i3 '''
      for i5 in nl.affine_range(40):
        v13[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] += nisa.nc_matmul(v8[i5, nl.arange(128)[:, None], nl.arange(128)[None, :]], v12[i1, i2, i5, nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i5 '''
      v9[4*i1 + i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v13[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i2 '''
    ''' end loop i1 '''
  for i6 in nl.affine_range(12):
    for i7 in nl.affine_range(40):
      v14[i6, i7, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[i7, nl.arange(128)[:, None], 1024*i6 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i7 '''
    v15[i6, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v4[nl.arange(128)[:, None], 1024*i6 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    for i8 in nl.affine_range(8):
      for i9 in nl.affine_range(4):
        for i10 in nl.affine_range(5):
          v16[i6, i8, i9, i10, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[i8, i9, nl.arange(128)[:, None, None], 8*i10 + nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
          for i11 in nl.affine_range(8):
            v17[i6, i8, i9, 8*i10 + i11, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v16[i6, i8, i9, i10, nl.arange(128)[:, None], i11, nl.arange(128)[None, :]], v7[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
            v18[i6, i8, i9, 8*i10 + i11, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v17[i6, i8, i9, 8*i10 + i11, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
            ''' end loop i11 '''
          ''' end loop i10 '''
        for i12 in nl.affine_range(2):
          for i13 in nl.affine_range(40):
            v19[i6, i8, i9, i12, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v18[i6, i8, i9, i13, nl.arange(128)[:, None], nl.arange(128)[None, :]], v14[i6, i13, nl.arange(128)[:, None], 512*i12 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
            ''' end loop i13 '''
          v19[i6, i8, i9, i12, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v9[4*i8 + i9, nl.arange(128)[:, None], nl.arange(128)[None, :]], v15[i6, nl.arange(128)[:, None], 512*i12 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
          v20[i6, i8, i9, nl.arange(128)[:, None], 512*i12 + nl.arange(512)[None, :]] = nl.copy(v19[i6, i8, i9, i12, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
          ''' end loop i12 '''
        for i14 in nl.affine_range(8):
          nl.store(v5[i8, i9, nl.arange(128)[:, None], 8*i6 + i14, nl.arange(128)[None, :]], value=v20[i6, i8, i9, nl.arange(128)[:, None], 128*i14 + nl.arange(128)[None, :]], mask=None)
          ''' end loop i14 '''
        ''' end loop i9 '''
      ''' end loop i8 '''
    ''' end loop i6 '''
  return v5
