import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # rmsnorm_matmul M=4096 K=1024 N=2048, x (32, 128, 1024), w (8, 128, 2048). Per row tile: load
  # x, square (activation), reduce, rsqrt of the mean (activation with scale 1/K); load x again,
  # scale rows, transpose the 8 128x128 blocks on the Tensor Engine; then 8 K tiles accumulate
  # per [128 x 512] output chunk against the resident w blocks; store.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((32, 128, 2048), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v5 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v5[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v4[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v6 = nl.ndarray((8, par_dim(128), 2048), dtype=np.float32, name='w_tiles', buffer=nl.sbuf)
  v7 = nl.ndarray((32, par_dim(128), 1024), dtype=np.float32, name='x_tile', buffer=nl.sbuf)
  v8 = nl.ndarray((32, par_dim(128), 1024), dtype=np.float32, name='squares', buffer=nl.sbuf)
  v9 = nl.ndarray((32, par_dim(128), 1), dtype=np.float32, name='total', buffer=nl.sbuf)
  v10 = nl.ndarray((32, par_dim(128), 1), dtype=np.float32, name='inv_rms', buffer=nl.sbuf)
  v11 = nl.ndarray((32, par_dim(128), 1024), dtype=np.float32, name='x_again', buffer=nl.sbuf)
  v12 = nl.ndarray((32, par_dim(128), 1024), dtype=np.float32, name='x_norm', buffer=nl.sbuf)
  v13 = nl.zeros((32, 8, par_dim(128), 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
  v14 = nl.ndarray((32, 8, par_dim(128), 128), dtype=np.float32, name='x_t', buffer=nl.sbuf)
  v15 = nl.zeros((32, 4, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v16 = nl.ndarray((32, 4, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  v17 = nisa.memset(shape=(128, 1), value=np.dtype(np.uint16).type(0), dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
  for i0 in nl.affine_range(8):
    v6[i0, nl.arange(128)[:, None], nl.arange(2048)[None, :]] = nl.load(v2[i0, nl.arange(128)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    ''' end loop i0 '''
  for i1 in nl.affine_range(32):
    v7[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v8[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.activation(op=np.square, data=v7[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], bias=v17[nl.arange(128)[:, None], 0], scale=1.0, mask=None, dtype=np.float32)
    v9[i1, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.add, data=v8[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
    v10[i1, nl.arange(128)[:, None], 0] = nisa.activation(op=nl.rsqrt, data=v9[i1, nl.arange(128)[:, None], 0], bias=v17[nl.arange(128)[:, None], 0], scale=0.0009765625, mask=None, dtype=np.float32)
    v11[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v12[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_scalar(data=v11[i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], op0=np.multiply, operand0=v10[i1, nl.arange(128)[:, None], 0], reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    for i2 in nl.affine_range(8):
      v13[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v12[i1, nl.arange(128)[:, None], 128*i2 + nl.arange(128)[None, :]], v5[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
      v14[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v13[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i2 '''
    for i3 in nl.affine_range(4):
      for i4 in nl.affine_range(8):
        v15[i1, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v14[i1, i4, nl.arange(128)[:, None], nl.arange(128)[None, :]], v6[i4, nl.arange(128)[:, None], 512*i3 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i4 '''
      v16[i1, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v15[i1, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
      nl.store(v3[i1, nl.arange(128)[:, None], 512*i3 + nl.arange(512)[None, :]], value=v16[i1, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
      ''' end loop i3 '''
    ''' end loop i1 '''
  return v3
