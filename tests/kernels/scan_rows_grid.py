# Legacy-grid style (v1..vN, index grids, block buffers declared up front, literal sizes): the
# selective-scan row nest of scan_rows_tiles.py (x, y (256, 1024)). The block buffers are indexed
# by the row loop only, so after chunk_rows each one needs a block per chunk.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2):
  v3 = nl.ndarray((256, 1024), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v4 = nl.ndarray((2, 2, par_dim(128), 1024), dtype=np.float32, name='inputs', buffer=nl.sbuf)
  v5 = nl.ndarray((2, 3, par_dim(128), 1024), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v4[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v4[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[128*i0 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.activation(op=np.exp, data=v4[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], scale=0.0009765625, mask=None, dtype=np.float32)
    v5[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nki.isa.tensor_tensor_scan(v5[i0, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v4[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], initial=0, op0=np.multiply, op1=np.add, mask=None, dtype=np.float32)
    v5[i0, 2, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nisa.tensor_tensor(v5[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], v4[i0, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
    nl.store(v3[128*i0 + nl.arange(128)[:, None], nl.arange(1024)[None, :]], value=v5[i0, 2, nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=None)
    ''' end loop i0 '''
  return v3
