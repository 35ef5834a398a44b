import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # transpose_matmul M=4096 K=2048 N=10944, lhs (128, 16, 4096), rhs (128, 16, 10944): the 128
  # partitions of lhs[:, t, :] and rhs[:, t, :] hold matching K rows, so no transpose. Per 128-row
  # tile, 22 chunks of 512 columns (the last masked to 192), each accumulating 16 matmuls with rhs
  # re-loaded per chunk and K tile.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((32, 128, 10944), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((32, par_dim(128), 16, 128), dtype=np.float32, name='lhs_tile', buffer=nl.sbuf)
  v5 = nl.zeros((32, 22, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v6 = nl.ndarray((32, 22, 16, par_dim(128), 512), dtype=np.float32, name='rhs_tile', buffer=nl.sbuf)
  v7 = nl.ndarray((32, 22, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0_blk in nl.affine_range(16):
    v4[2*i0_blk, nl.arange(128)[:, None, None], nl.arange(16)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[nl.arange(128)[:, None, None], nl.arange(16)[None, :, None], 256*i0_blk + nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
    v4[2*i0_blk + 1, nl.arange(128)[:, None, None], nl.arange(16)[None, :, None], nl.arange(128)[None, None, :]] = nl.load(v1[nl.arange(128)[:, None, None], nl.arange(16)[None, :, None], 256*i0_blk + 128 + nl.arange(128)[None, None, :]], dtype=np.float32, mask=None)
    for i1 in nl.affine_range(22):
      for i2 in nl.affine_range(16):
        v6[2*i0_blk, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[nl.arange(128)[:, None], i2, 512*i1 + nl.arange(512)[None, :]], dtype=np.float32, mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
        v5[2*i0_blk, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v4[2*i0_blk, nl.arange(128)[:, None], i2, nl.arange(128)[None, :]], v6[2*i0_blk, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
        v5[2*i0_blk + 1, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v4[2*i0_blk + 1, nl.arange(128)[:, None], i2, nl.arange(128)[None, :]], v6[2*i0_blk, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
        ''' end loop i2 '''
      v7[2*i0_blk, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v5[2*i0_blk, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
      v7[2*i0_blk + 1, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v5[2*i0_blk + 1, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
      nl.store(v3[2*i0_blk, nl.arange(128)[:, None], 512*i1 + nl.arange(512)[None, :]], value=v7[2*i0_blk, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
      nl.store(v3[2*i0_blk + 1, nl.arange(128)[:, None], 512*i1 + nl.arange(512)[None, :]], value=v7[2*i0_blk + 1, i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=-512*i1 - nl.arange(512)[None, :] + 10943 >= 0)
      ''' end loop i1 '''
    ''' end loop i0 '''
  return v3
