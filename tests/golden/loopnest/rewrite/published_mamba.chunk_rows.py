import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4, v5):
  # mamba (selective scan) M=7168 C=256 S=16, delta (256, 7168), u (256, 7168), a (256, 16),
  # b (16, 7168), c (16, 7168). Per 128-channel tile: delta * u; per state exp(delta * a) on the
  # Scalar Engine, b and c rows broadcast to 128 partitions, the scan along M on the Vector
  # Engine, c * h accumulated over the states in SBUF.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v6 = nl.ndarray((256, 7168), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v7 = nl.ndarray((2, 7, 2, par_dim(128), 1024), dtype=np.float32, name='inputs', buffer=nl.sbuf)
  v8 = nl.ndarray((2, par_dim(128), 16), dtype=np.float32, name='a_tile', buffer=nl.sbuf)
  v9 = nl.ndarray((2, 7, par_dim(128), 1024), dtype=np.float32, name='delta_u', buffer=nl.sbuf)
  v10 = nl.zeros((2, 7, par_dim(128), 1024), dtype=np.float32, name='acc', buffer=nl.sbuf)
  v11 = nl.ndarray((2, 7, 16, 2, par_dim(1), 1024), dtype=np.float32, name='rows', buffer=nl.sbuf)
  v12 = nl.ndarray((2, 7, 16, 6, par_dim(128), 1024), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v8[i0, nl.arange(128)[:, None], nl.arange(16)[None, :]] = nl.load(v3[128*i0 + nl.arange(128)[:, None], nl.arange(16)[None, :]], dtype=np.float32, mask=None)
    scan_carry = nl.zeros(shape=(128, 16), dtype=nl.float32, buffer=nl.sbuf)
    for chunk in nl.sequential_range(7):
      v7[i0, chunk, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], 1024*chunk + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
      v7[i0, chunk, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[128*i0 + nl.arange(128)[:, None], 1024*chunk + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
      v9[i0, chunk, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v7[i0, chunk, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v7[i0, chunk, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
      for i1 in nl.static_range(16):
        v12[i0, chunk, i1, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.activation(op=np.exp, data=v7[i0, chunk, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], scale=v8[i0, nl.arange(128)[:, None], i1], mask=None, dtype=np.float32)
        v11[i0, chunk, i1, 0, nl.arange(1)[:, None], nl.arange(1024)[None, :]] = nl.load(v4[i1 + nl.arange(1)[:, None], 1024*chunk + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
        v12[i0, chunk, i1, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.broadcast_to(v11[i0, chunk, i1, 0, nl.arange(1)[:, None], nl.arange(1024)[None, :]], shape=(128, 1024))
        v12[i0, chunk, i1, 2, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v9[i0, chunk, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v12[i0, chunk, i1, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
        v12[i0, chunk, i1, 3, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nki.isa.tensor_tensor_scan(v12[i0, chunk, i1, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v12[i0, chunk, i1, 2, nl.arange(128)[:, None], nl.arange(1024)[None, :]], initial=scan_carry[nl.arange(128)[:, None], i1 + nl.arange(1)[None, :]], op0=np.multiply, op1=np.add, mask=None, dtype=np.float32)
        scan_carry[nl.arange(128)[:, None], i1 + nl.arange(1)[None, :]] = v12[i0, chunk, i1, 3, nl.arange(128)[:, None], 1023 + nl.arange(1)[None, :]]
        v11[i0, chunk, i1, 1, nl.arange(1)[:, None], nl.arange(1024)[None, :]] = nl.load(v5[i1 + nl.arange(1)[:, None], 1024*chunk + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
        v12[i0, chunk, i1, 4, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.broadcast_to(v11[i0, chunk, i1, 1, nl.arange(1)[:, None], nl.arange(1024)[None, :]], shape=(128, 1024))
        v12[i0, chunk, i1, 5, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v12[i0, chunk, i1, 3, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v12[i0, chunk, i1, 4, nl.arange(128)[:, None], nl.arange(1024)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
        v10[i0, chunk, nl.arange(128)[:, None], nl.arange(1024)[None, :]] += v12[i0, chunk, i1, 5, nl.arange(128)[:, None], nl.arange(1024)[None, :]]
        ''' end loop i1 '''
      nl.store(v6[128*i0 + nl.arange(128)[:, None], 1024*chunk + nl.arange(1024)[None, :]], value=v10[i0, chunk, nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=None)
    ''' end loop i0 '''
  return v6
