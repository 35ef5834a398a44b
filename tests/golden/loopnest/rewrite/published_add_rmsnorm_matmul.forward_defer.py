import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4, v5):
  # add_rmsnorm_matmul M=4096 K=1024 N=2048, x (4096, 1024), w (1024, 2048), eps, z (4096, 1024),
  # g (1024,). g is loaded once and broadcast to 128 partitions. First nest: per row tile
  # y = x + z, sum of squares, rsqrt(mean + eps), y * rsqrt * g into an HBM scratch tensor.
  # Second nest: per row tile the scratch rows are transposed on the Tensor Engine and multiplied
  # by the resident w tiles, 8 K tiles accumulated per [128 x 512] output chunk.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v6 = nl.ndarray((4096, 2048), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v8 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v9 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v9[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v8[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v10 = nl.ndarray((par_dim(1), 1024), dtype=np.float32, name='g_row', buffer=nl.sbuf)
  v10[nl.arange(1)[:, None], nl.arange(1024)[None, :]] = nl.load(v5.reshape((1, 1024))[nl.arange(1)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
  v11 = nl.ndarray((par_dim(128), 1024), dtype=np.float32, name='g_tile', buffer=nl.sbuf)
  v11[nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.broadcast_to(v10[nl.arange(1)[:, None], nl.arange(1024)[None, :]], shape=(128, 1024))
  v14 = nl.ndarray((32, 3, par_dim(128), 1024), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  v15 = nl.ndarray((32, 4, par_dim(128), 1), dtype=np.float32, name='stat', buffer=nl.sbuf)
  v17 = nl.ndarray((8, par_dim(128), 2048), dtype=np.float32, name='w_tiles', buffer=nl.sbuf)
  v20 = nl.ndarray((32, 8, par_dim(128), 128), dtype=np.float32, name='y_t', buffer=nl.sbuf)
  for i1 in nl.affine_range(8):
    v17[i1, nl.arange(128)[:, None], nl.arange(2048)[None, :]] = nl.load(v2[128*i1 + nl.arange(128)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    ''' end loop i1 '''
  for i0 in nl.affine_range(32):
    v12 = nl.ndarray((128, 1024), dtype=np.float32, name='x_tile', buffer=nl.sbuf)
    v13 = nl.ndarray((128, 1024), dtype=np.float32, name='z_tile', buffer=nl.sbuf)
    v16 = nl.ndarray((128, 1024), dtype=np.float32, name='y_scaled', buffer=nl.sbuf)
    v12[...] = nl.load(v1[128*i0 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v13[...] = nl.load(v4[128*i0 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v14[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.add(v12, v13, mask=None, dtype=np.float32)
    v14[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.activation(op=np.square, data=v14[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], scale=1.0, mask=None, dtype=np.float32)
    v15[i0, 0, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(np.add, data=v14[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=None, axis=[1], dtype=np.float32, negate=False)
    v15[i0, 1, nl.arange(128)[:, None], 0] = nisa.tensor_scalar(data=v15[i0, 0, nl.arange(128)[:, None], 0], op0=np.multiply, operand0=np.dtype(np.float32).type(0.0009765625), reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    v15[i0, 2, nl.arange(128)[:, None], 0] = nisa.tensor_scalar(data=v15[i0, 1, nl.arange(128)[:, None], 0], op0=np.add, operand0=v3, reverse0=False, dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
    v15[i0, 3, nl.arange(128)[:, None], 0] = nisa.activation(op=nl.rsqrt, data=v15[i0, 2, nl.arange(128)[:, None], 0], scale=1.0, mask=None, dtype=np.float32)
    v16[...] = nl.multiply(v14[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v11[nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=None, dtype=np.float32)
    for i3 in nl.affine_range(8):
      v19 = nl.zeros((128, 128), dtype=np.float32, name='t_psum', buffer=nl.psum, lazy_initialization=True)
      v19[...] = nisa.nc_matmul(v16[nl.arange(128)[:, None], 128*i3 + nl.arange(128)[None, :]], v9[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
      v20[i0, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v19, dtype=np.float32, mask=None)
      ''' end loop i3 '''
    for i4 in nl.affine_range(4):
      v21 = nl.zeros((128, 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
      v22 = nl.ndarray((128, 512), dtype=np.float32, name='res', buffer=nl.sbuf)
      for i5 in nl.affine_range(8):
        v21[...] += nisa.nc_matmul(v20[i0, i5, nl.arange(128)[:, None], nl.arange(128)[None, :]], v17[i5, nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
        ''' end loop i5 '''
      v22[...] = nisa.tensor_scalar(data=v21, op0=nl.multiply, operand0=v15[i0, 3, nl.arange(128)[:, None], 0], mask=None, dtype=np.float32)
      nl.store(v6[128*i0 + nl.arange(128)[:, None], 512*i4 + nl.arange(512)[None, :]], value=v22, mask=None)
      ''' end loop i4 '''
    ''' end loop i0 '''
  return v6
