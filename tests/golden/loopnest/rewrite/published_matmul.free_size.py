import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # matmul M=4096 K=5120 N=12288, lhs (32, 128, 40, 128), rhs (40, 128, 12288). For each of 12
  # column blocks of 1024: load the 40 rhs K tiles [128 x 1024]; for each of 32 row tiles load the
  # lhs row in 5 chunks [128 x 1024], transpose each 128x128 block on the Tensor Engine (matmul
  # against the identity, copied to SBUF), then per 512-column half accumulate 40 matmuls in one
  # PSUM tile, copy to SBUF and store.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((32, 128, 12288), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v5 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v5[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v4[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v6 = nl.ndarray((24, 40, par_dim(128), 512), dtype=np.float32, name='rhs_tiles', buffer=nl.sbuf)
  v7 = nl.ndarray((24, 32, 5, par_dim(128), 8, 128), dtype=np.float32, name='lhs_rows', buffer=nl.sbuf)
  v8 = nl.zeros((24, 32, 40, par_dim(128), 128), dtype=np.float32, name='lhs_t_psum', buffer=nl.psum, lazy_initialization=True)
  v9 = nl.ndarray((24, 32, 40, par_dim(128), 128), dtype=np.float32, name='lhs_t', buffer=nl.sbuf)
  v10 = nl.zeros((24, 32, 1, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v11 = nl.ndarray((24, 32, 1, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(24):
    for i1 in nl.affine_range(40):
      v6[i0, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[i1, nl.arange(128)[:, None], 512*i0 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i1 '''
    for i2 in nl.affine_range(32):
      for i3 in nl.affine_range(5):
        v7[i0, i2, i3, nl.arange(128)[:, None, None], nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[i2, nl.arange(128)[:, None, None], 8*i3 + nl.arange(8)[None, :, None], nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
        for i4 in nl.affine_range(8):
          v8[i0, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v7[i0, i2, i3, nl.arange(128)[:, None], i4, nl.arange(128)[None, :]], v5[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
          v9[i0, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v8[i0, i2, 8*i3 + i4, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
          ''' end loop i4 '''
        ''' end loop i3 '''
      for i6 in nl.affine_range(40):
        v10[i0, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v9[i0, i2, i6, nl.arange(128)[:, None], nl.arange(128)[None, :]], v6[i0, i6, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i6 '''
      v11[i0, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v10[i0, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      nl.store(v3[i2, nl.arange(128)[:, None], 512*i0 + nl.arange(512)[None, :]], value=v11[i0, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
      ''' end loop i5 '''
      ''' end loop i2 '''
    ''' end loop i0 '''
  return v3
