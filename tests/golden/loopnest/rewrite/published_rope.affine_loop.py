import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3):
  # rope_single_freq_apply B=1 H=64 N=4096 D=128, x (128, 262144), cos (64, 262144),
  # sin (64, 262144). Per 1024-column block on 64 partitions: load both halves of x, cos and sin;
  # x0 cos - x1 sin into the low half, x0 sin + x1 cos into the high half.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v4 = nl.ndarray((128, 262144), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v5 = nl.ndarray((256, 4, par_dim(64), 1024), dtype=np.float32, name='inputs', buffer=nl.sbuf)
  v6 = nl.ndarray((256, 6, par_dim(64), 1024), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  for i0 in nl.affine_range(256):
    v5[i0, 0, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 1, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[64 + nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 2, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 3, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nl.load(v3[nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 0, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v5[i0, 0, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v5[i0, 2, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.multiply, mask=None, dtype=np.float32)
    v6[i0, 1, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v5[i0, 1, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v5[i0, 3, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.multiply, mask=None, dtype=np.float32)
    v6[i0, 2, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v6[i0, 0, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v6[i0, 1, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.subtract, mask=None, dtype=np.float32)
    v6[i0, 3, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v5[i0, 0, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v5[i0, 3, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.multiply, mask=None, dtype=np.float32)
    v6[i0, 4, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v5[i0, 1, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v5[i0, 2, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.multiply, mask=None, dtype=np.float32)
    v6[i0, 5, nl.arange(64)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v6[i0, 3, nl.arange(64)[:, None], nl.arange(1024)[None, :]], v6[i0, 4, nl.arange(64)[:, None], nl.arange(1024)[None, :]], np.add, mask=None, dtype=np.float32)
    nl.store(v4[nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], value=v6[i0, 2, nl.arange(64)[:, None], nl.arange(1024)[None, :]], mask=None)
    nl.store(v4[64 + nl.arange(64)[:, None], 1024*i0 + nl.arange(1024)[None, :]], value=v6[i0, 5, nl.arange(64)[:, None], nl.arange(1024)[None, :]], mask=None)
    ''' end loop i0 '''
  return v4
