import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  # NKIBench generated matmul: lhs rows loaded as (128, 128) blocks of a 4-D view, transposed on
  # the Tensor Engine by nc_matmul with an identity from nl.shared_constant(np.identity(...))
  # (is_transpose=True), PSUM zeros with lazy_initialization, `psum[...] += nc_matmul`.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v3 = nl.ndarray((256, 512), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.shared_constant(np.identity(128, dtype=np.float32))
  v5 = nl.ndarray((par_dim(128), 128), dtype=np.float32, name='identity', buffer=nl.sbuf)
  v5[nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v4[nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
  v6 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='lhs', buffer=nl.sbuf)
  v7 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='lhsT_psum', buffer=nl.psum)
  v8 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, name='lhsT', buffer=nl.sbuf)
  v9 = nl.ndarray((2, par_dim(128), 512), dtype=np.float32, name='rhs', buffer=nl.sbuf)
  v10 = nl.zeros((2, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.psum, lazy_initialization=True)
  v11 = nl.ndarray((2, par_dim(128), 512), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v9[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[128*i0 + nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
    ''' end loop i0 '''
  for i1 in nl.affine_range(2):
    for i2 in nl.affine_range(2):
      v6[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(v1[i1, nl.arange(128)[:, None], i2, nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      v7[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nisa.nc_matmul(v6[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]], v5[nl.arange(128)[:, None], nl.arange(128)[None, :]], is_stationary_onezero=False, is_moving_onezero=True, mask=None, is_transpose=True)
      v8[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.copy(v7[i1, i2, nl.arange(128)[:, None], nl.arange(128)[None, :]], dtype=np.float32, mask=None)
      ''' end loop i2 '''
    for i3 in nl.affine_range(2):
      v10[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.nc_matmul(v8[i1, i3, nl.arange(128)[:, None], nl.arange(128)[None, :]], v9[i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], is_stationary_onezero=False, is_moving_onezero=False, mask=None)
      ''' end loop i3 '''
    v11[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.copy(v10[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], dtype=np.float32, mask=None)
    nl.store(v3[128*i1 + nl.arange(128)[:, None], nl.arange(512)[None, :]], value=v11[i1, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
    ''' end loop i1 '''
  return v3
